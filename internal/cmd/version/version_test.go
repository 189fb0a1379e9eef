package version_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/cmd/version"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/sqlitewrite"
	"github.com/openclaw/sessions/internal/testutil"
)

// TestLdflagsStamp builds sessions the way make dist does (-ldflags -X for
// Version, Commit and Date) and checks that `version --json` and `version`
// name the stamped values.
func TestLdflagsStamp(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to build sessions with")
	}
	const (
		ver    = "1.2.3-test"
		commit = "0123456789abcdef0123456789abcdef01234567"
		date   = "2026-11-26T12:34:56Z"
	)
	pkg := "github.com/openclaw/sessions/internal/cmd/version"
	exe := filepath.Join(t.TempDir(), "sessions")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	build := exec.Command(goBin, "build", "-o", exe, "-ldflags",
		"-X "+pkg+".Version="+ver+" -X "+pkg+".Commit="+commit+" -X "+pkg+".Date="+date,
		"./cmd/sessions")
	build.Dir = testutil.Root(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	out, err := exec.Command(exe, "version", "--json").Output()
	if err != nil {
		t.Fatalf("version --json: %v", err)
	}
	var got version.Info
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("version --json: %v\n%s", err, out)
	}
	if got.Version != ver || got.Revision != commit || got.Date != date {
		t.Errorf("version --json = %s; want version %q, revision %q, date %q", out, ver, commit, date)
	}
	if want := runtime.GOOS + "/" + runtime.GOARCH; got.Platform != want {
		t.Errorf("platform %q, want %q", got.Platform, want)
	}

	out, err = exec.Command(exe, "version").Output()
	if err != nil {
		t.Fatalf("version: %v", err)
	}
	if want := "sessions " + ver + " (" + commit; !strings.HasPrefix(string(out), want) || !strings.Contains(string(out), date+")") {
		t.Errorf("version = %q; want it to start with %q and name %s", out, want, date)
	}
}

// TestUnstamped: without -ldflags there is no date in the JSON document
// (the field is omitted) and the version is never empty.
func TestUnstamped(t *testing.T) {
	if version.Version != "" || version.Commit != "" || version.Date != "" {
		t.Skip("this test binary was stamped")
	}
	i := version.Get()
	if i.Date != "" || i.Version == "" {
		t.Errorf("Get() = %+v; want no date and a version", i)
	}
	b, _ := json.Marshal(i)
	if strings.Contains(string(b), `"date"`) {
		t.Errorf("JSON %s names a date", b)
	}
}

// TestCompat: `version` names the OpenClaw state it reads and writes from
// the constants the readers and writers check, so a bump of either shows.
func TestCompat(t *testing.T) {
	i := version.Get()
	if i.Reads.AgentSchema != sqlitestore.ReadSchemaVersion || i.Writes.AgentSchema != sqlitewrite.SchemaVersion {
		t.Errorf("agent schemas read %d, written %d; want %d and %d", i.Reads.AgentSchema, i.Writes.AgentSchema, sqlitestore.ReadSchemaVersion, sqlitewrite.SchemaVersion)
	}
	if i.Writes.AgentSchema > i.Reads.AgentSchema {
		t.Errorf("writes agent schema %d, newer than the newest read (%d)", i.Writes.AgentSchema, i.Reads.AgentSchema)
	}
	line := i.Compat()
	for _, want := range []string{
		"reads OpenClaw " + era.JSONReleases + " state (JSON era)",
		era.SQLiteSince + "+ SQLite stores up to agent schema " + strconv.Itoa(sqlitestore.ReadSchemaVersion) + " (" + sqlitestore.ReadSchemaOpenClaw + ")",
		"writes the JSON era and agent schema " + strconv.Itoa(sqlitewrite.SchemaVersion) + " (OpenClaw " + sqlitewrite.OpenClawVersion + ")",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("version says %q; want it to contain %q", line, want)
		}
	}
}
