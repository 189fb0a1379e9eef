package e2e_test

// Helpers shared by the reliability suites (badinput_test.go,
// crash_test.go, policy_table_test.go, perm_test.go): they run the real
// CLI as a subprocess — the "sessions" command testscript.Main puts on
// $PATH (this test binary, dispatching on argv[0]) — over throw-away copies
// of the bundled OpenClaw states, and compare whole trees before and after.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/proc"
)

// relExe is the sessions command on $PATH (set up by testscript.Main).
func relExe(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("sessions")
	if err != nil {
		t.Fatalf("the sessions command is not on $PATH (testscript.Main sets it up): %v", err)
	}
	return p
}

// relEnv is a clean environment for the CLI: nothing of the caller's
// OpenClaw or sessions settings, HOME inside root, plus extra.
func relEnv(root string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OPENCLAW_") || strings.HasPrefix(k, "CLAWDBOT_") || strings.HasPrefix(k, "SESSIONS_") ||
			k == "HOME" || k == "NO_COLOR" || k == "TZ" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+filepath.Join(root, "home"), "NO_COLOR=1", "TZ=UTC")
	return append(env, extra...)
}

// relResult is one finished CLI run.
type relResult struct {
	Stdout, Stderr string
	Code           int
	Took           time.Duration
	Hung           bool // killed at the bound
}

// relRun runs `sessions args…` with env, killed after bound.
func relRun(t testing.TB, env []string, bound time.Duration, args ...string) relResult {
	t.Helper()
	return relRunAs(t, relExe(t), nil, env, bound, args...)
}

// relRunAs is relRun with another executable and, when cred is set, as
// another user.
func relRunAs(t testing.TB, exe string, cred *userCred, env []string, bound time.Duration, args ...string) relResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	var out, errb bytes.Buffer
	var err error
	start := time.Now()
	// A binary copied just now (asNobody) may be held open for writing by
	// a process another test forks at that moment, until it execs: the
	// exec is then refused with ETXTBSY for a moment. Start again.
	for try := 0; ; try++ {
		cmd := exec.CommandContext(ctx, exe, args...)
		cmd.Args[0] = "sessions"
		cmd.Env = env
		if cred != nil {
			runAs(cmd, cred)
		}
		out.Reset()
		errb.Reset()
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.WaitDelay = 2 * time.Second
		err = cmd.Run()
		if !errors.Is(err, syscall.ETXTBSY) || try == 50 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	r := relResult{Stdout: out.String(), Stderr: errb.String(), Took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.Hung, r.Code = true, -1
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	case err != nil:
		t.Fatalf("sessions %q: %v", args, err)
	}
	return r
}

// relCopyTree copies the directory src to dst (files keep their mode;
// symlinks are copied as links).
func relCopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, target)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm()|0o200)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// relState copies the repository's testdata/<fixture> to <root>/state and
// returns its path.
func relState(t testing.TB, root, fixture string) string {
	t.Helper()
	dst := filepath.Join(root, "state")
	relCopyTree(t, filepath.Join(fixtures(t), fixture), dst)
	return dst
}

// relSnapshot maps every path under root (relative, "/"-separated) to its
// type, mode and, for regular files, sha256 of the content. It never opens
// anything but regular files (a FIFO would block) and records a file it
// cannot read as unreadable.
func relSnapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				rel, _ := filepath.Rel(root, p)
				snap[filepath.ToSlash(rel)] = "unreadable dir"
				return fs.SkipDir
			}
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		m := info.Mode()
		switch {
		case m&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			snap[rel] = "symlink -> " + l
		case m.IsDir():
			snap[rel] = "dir " + m.String()
		case m.IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				snap[rel] = "unreadable " + m.String()
				return nil
			}
			h := sha256.Sum256(data)
			snap[rel] = fmt.Sprintf("file %s %d %s", m.String(), len(data), hex.EncodeToString(h[:8]))
		default:
			snap[rel] = "special " + m.String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// relDiff lists the paths that differ between two snapshots, ignoring
// those under an allowed prefix.
func relDiff(before, after map[string]string, allowed ...string) []string {
	ok := func(p string) bool {
		for _, a := range allowed {
			if p == strings.TrimSuffix(a, "/") || strings.HasPrefix(p, strings.TrimSuffix(a, "/")+"/") {
				return true
			}
		}
		return false
	}
	var out []string
	for p, v := range before {
		if ok(p) {
			continue
		}
		if w, found := after[p]; !found {
			out = append(out, "- "+p+" ("+v+")")
		} else if w != v {
			out = append(out, "~ "+p+": "+v+" → "+w)
		}
	}
	for p, w := range after {
		if _, found := before[p]; !found && !ok(p) {
			out = append(out, "+ "+p+" ("+w+")")
		}
	}
	sort.Strings(out)
	return out
}

// relRunRecord is what the suites read of a run record.
type relRunRecord struct {
	RunID     string `json:"runId"`
	Kind      string `json:"kind"`
	Status    string `json:"status"`
	Error     string `json:"error"`
	Reply     string `json:"reply"`
	ReplyDone bool   `json:"replyDone"`
	RunnerPID int    `json:"runnerPid"`
	Steps     []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Reply  string `json:"reply"`
		Error  string `json:"error"`
	} `json:"steps"`
	Delivery *struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	} `json:"delivery"`
	Target struct {
		Key string `json:"key"`
	} `json:"target"`
}

// relRuns reads every run record of a state dir.
func relRuns(t testing.TB, state string) []relRunRecord {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(state, "sessions-cli", "runs", "*.json"))
	var out []relRunRecord
	for _, p := range files {
		if strings.HasPrefix(filepath.Base(p), ".") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue // renamed over meanwhile
		}
		var r relRunRecord
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("run record %s is not valid JSON: %v", p, err)
		}
		out = append(out, r)
	}
	return out
}

func relTerminal(status string) bool {
	return status == "ok" || status == "error" || status == "timeout"
}

// relWaitRuns waits until every run of the state dir has ended and its
// runner is gone (its flock free), at most bound; it fails the test
// otherwise.
func relWaitRuns(t testing.TB, env []string, state string, bound time.Duration) []relRunRecord {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		rs := relRuns(t, state)
		done := true
		for _, r := range rs {
			if !relTerminal(r.Status) || (r.RunnerPID > 0 && relAlive(r.RunnerPID)) {
				done = false
			}
		}
		if done {
			return rs
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs still going after %s: %+v", bound, rs)
		}
		// `runs` reaps a run whose runner died (as `wait` does).
		relRun(t, env, 10*time.Second, "--state-dir", state, "runs", "--json")
		time.Sleep(50 * time.Millisecond)
	}
}

// relAlive reports whether pid exists and is not a zombie.
func relAlive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		if _, perr := os.Stat("/proc/self/stat"); perr != nil { // no procfs
			return proc.Exists(pid)
		}
		return false
	}
	// pid (comm) state …: the state follows the last ')'.
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}
