package e2e_test

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/openclaw/sessions/internal/testutil"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"sessions": func() { os.Exit(runSessions(os.Args[1:])) },
		"genmsgs":  func() { os.Exit(genMsgs(os.Args[1:])) },
	})
}

// TestScript runs the end-to-end scripts in testdata/script (of this
// directory): one behaviour per file, each over its own copy of real
// OpenClaw state from the repository's testdata/ ($TESTDATA in them).
func TestScript(t *testing.T) {
	root := fixtures(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       testutil.UpdateGolden(), // UPDATE_GOLDEN=1 rewrites the scripts' expected output
		Setup: func(e *testscript.Env) error {
			e.Setenv("TESTDATA", root)
			e.Setenv("NO_COLOR", "1")
			e.Setenv("TZ", "UTC")
			e.Setenv("OPENCLAW_STATE_DIR", "")
			e.Setenv("OPENCLAW_SESSION_KEY", "")
			e.Setenv("OPENCLAW_GATEWAY_URL", "")
			e.Setenv("OPENCLAW_GATEWAY_TOKEN", "")
			e.Setenv("OPENCLAW_GATEWAY_PASSWORD", "")
			// the run records of runs through a named gateway
			e.Setenv("XDG_STATE_HOME", filepath.Join(e.WorkDir, ".xdg-state"))
			// contexts and device files: never outside the script's dir
			e.Setenv("XDG_CONFIG_HOME", filepath.Join(e.WorkDir, ".xdg-config"))
			// the search index: never outside the script's dir; the scripts
			// run with it, and with SESSIONS_NO_INDEX=1 without (the same bytes)
			e.Setenv("XDG_CACHE_HOME", filepath.Join(e.WorkDir, ".xdg-cache"))
			e.Setenv("SESSIONS_NO_INDEX", os.Getenv("SESSIONS_NO_INDEX"))
			// the default engine (auto) depends on the machine (an openclaw
			// on $PATH, a live gateway): scripts use provider unless they
			// say otherwise (send_engine_auto.txtar tests auto)
			e.Setenv("SESSIONS_ENGINE", "provider")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"gwfake":      gwWrite,
			"copystate":   copyState,
			"exitcode":    exitCode,
			"snapshot":    snapshot,
			"appendhex":   appendHex,
			"storelock":   storeLock,
			"waitfile":    waitFile,
			"appendfile":  appendFile,
			"flockhold":   flockHold,
			"fakellm":     fakeLLMCmd,
			"envfile":     envFile,
			"txlock":      transcriptLock,
			"growstore":   growStore,
			"sqlexec":     sqlExec,
			"sqlquery":    sqlQuery,
			"fakegw":      fakeGateway,
			"gwemit":      gwEmit,
			"mkfifo":      mkfifoCmd,
			"gatewaylock": gatewayLock,
			"truncate":    truncateCmd,
			"waitindex":   waitIndex,
		},
	})
}

// fixtures is the absolute path of the repository's testdata/, which holds
// the bundled OpenClaw states (this directory's testdata/ holds the scripts
// and the bad-input corpus).
func fixtures(t testing.TB) string {
	t.Helper()
	return filepath.Join(testutil.Root(t), "testdata")
}

// copystate NAME DST: copy $TESTDATA/NAME (a state dir of the repository's
// testdata/) to DST.
func copyState(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: copystate NAME DST")
	}
	src := filepath.Join(ts.Getenv("TESTDATA"), args[0])
	dst := ts.MkAbs(args[1])
	ts.Check(testutil.CopyTree(src, dst))
}

// exitcode N CMD ARGS...: run an exec'd command and require exit status N.
func exitCode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: exitcode N cmd args...")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		if ee, ok := err.(interface{ ExitCode() int }); ok {
			got = ee.ExitCode()
		} else {
			ts.Fatalf("exec %s: %v", args[1], err)
		}
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// snapshot save|check DIR NAME: hash every file under DIR (save), then
// require them byte-identical (check) — bad input must leave files as they were.
func snapshot(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: snapshot save|check DIR NAME")
	}
	dir := ts.MkAbs(args[1])
	sum := hashTree(ts, dir)
	key := "SNAPSHOT_" + args[2]
	switch args[0] {
	case "save":
		ts.Setenv(key, sum)
	case "check":
		if prev := ts.Getenv(key); prev != sum {
			ts.Fatalf("files under %s changed:\n%s", args[1], diffSnap(prev, sum))
		}
	default:
		ts.Fatalf("snapshot: unknown mode %q", args[0])
	}
}

// appendhex FILE HEX: append raw bytes (for invalid UTF-8, NULs, torn lines).
func appendHex(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: appendhex FILE HEX")
	}
	b, err := hex.DecodeString(args[1])
	ts.Check(err)
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	ts.Check(err)
	_, err = f.Write(b)
	ts.Check(err)
	ts.Check(f.Close())
}

// storelock FILE [PID]: create an OpenClaw store lock file FILE
// ({"pid":PID,"startedAt":<now ms>}, fresh mtime) held by PID, by default
// the test process itself (alive for the whole script, so never evicted as
// dead).
func storeLock(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: storelock FILE [PID]")
	}
	pid := os.Getpid()
	if len(args) == 2 {
		var err error
		pid, err = strconv.Atoi(args[1])
		ts.Check(err)
	}
	payload := fmt.Sprintf(`{"pid":%d,"startedAt":%d}`, pid, time.Now().UnixMilli())
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(payload), 0o644))
	ts.Setenv("LOCKPID", strconv.Itoa(pid))
}
