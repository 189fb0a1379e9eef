package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil"
)

// copyFixture copies the 2026.1.30 fixture into a temp dir (for tests that
// add files to it).
func copyFixture(t *testing.T) string {
	t.Helper()
	src := fixture(t)
	dst := t.TempDir()
	if err := testutil.CopyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

func writeRun(t *testing.T, dir, id, status string) {
	t.Helper()
	runs := filepath.Join(dir, "sessions-cli", "runs")
	if err := os.MkdirAll(runs, 0o700); err != nil {
		t.Fatal(err)
	}
	rec := `{"runId":"` + id + `","kind":"send","status":"` + status + `","createdAt":1795236260000,` +
		`"target":{"key":"agent:main:main","displayKey":"main","agentId":"main"},"message":"hi",` +
		`"timeoutSeconds":30,"engine":"provider","replyDone":true,"reply":"hello","steps":[]}`
	if err := os.WriteFile(filepath.Join(runs, id+".json"), []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Empty results: on a TTY a message on stderr and nothing on stdout (exit
// 0); piped, nothing at all; with --json a document with count 0.
func TestEmptyResults(t *testing.T) {
	dir := fixture(t)
	cases := []struct {
		args    []string
		message string
		json    string // a jq expression that must print 0
	}{
		{[]string{"list", "--kinds", "node"}, "No sessions found.", ".count"},
		{[]string{"runs"}, "No runs found.", ".count"},
		{[]string{"locks"}, "No locks held.", ".count"},
	}
	for _, c := range cases {
		name := strings.Join(c.args, " ")
		f, out, errOut := testFactory(true)
		if code := Run(f, append([]string{"--state-dir", dir}, c.args...)); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		if out.Len() != 0 || strings.TrimSpace(errOut.String()) != c.message {
			t.Errorf("%s on a TTY: stdout %q, stderr %q", name, out, errOut)
		}
		f, out, errOut = testFactory(false)
		if code := Run(f, append([]string{"--state-dir", dir}, c.args...)); code != 0 || out.Len() != 0 || errOut.Len() != 0 {
			t.Errorf("%s piped: exit %d, stdout %q, stderr %q", name, code, out, errOut)
		}
		f, out, _ = testFactory(false)
		if code := Run(f, append([]string{"--state-dir", dir, "--jq", c.json}, c.args...)); code != 0 || out.String() != "0\n" {
			t.Errorf("%s --jq %s: exit %d, %q", name, c.json, code, out)
		}
	}
}

// A transcript with no messages: "No messages." on a TTY only.
func TestHistoryEmptyTTY(t *testing.T) {
	dir := copyFixture(t)
	p := filepath.Join(dir, "agents/main/sessions/02161643-4320-459e-9b07-c42d02d97f2f.jsonl")
	if err := os.WriteFile(p, []byte(`{"type":"session","version":3,"id":"02161643-4320-459e-9b07-c42d02d97f2f","timestamp":"2026-11-21T04:43:51.000Z","cwd":"/tmp"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, out, errOut := testFactory(true)
	if code := Run(f, []string{"--state-dir", dir, "history", "agent:main:hook:github:push-42"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out.Len() != 0 || strings.TrimSpace(errOut.String()) != "No messages." {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
	f, out, _ = testFactory(true)
	Run(f, []string{"--state-dir", dir, "history", "agent:main:hook:github:push-42", "--json"})
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc["messages"].([]any)) != 0 {
		t.Errorf("--json: %v %s", err, out)
	}
}

// Colour only when the streams say so: roles in history text, status words
// in runs, alive/stale in locks; never in piped TSV.
func TestColourOnlyWhenEnabled(t *testing.T) {
	dir := copyFixture(t)
	writeRun(t, dir, "0b5c3c8e-3c1e-4d4e-9a51-2d4f7b1c6a10", "ok")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"history", "main", "--limit", "2"}, "\x1b[1;36massistant\x1b[0m"},
		{[]string{"runs"}, "\x1b[32mok\x1b[0m"},
	} {
		name := strings.Join(c.args, " ")
		f, out, _ := testFactory(true)
		f.IO.SetColorEnabled(true)
		if code := Run(f, append([]string{"--state-dir", dir}, c.args...)); code != 0 {
			t.Fatalf("%s: exit %d", name, code)
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%s with colour: no %q in\n%s", name, c.want, out)
		}
		f, out, _ = testFactory(true)
		if Run(f, append([]string{"--state-dir", dir}, c.args...)); strings.Contains(out.String(), "\x1b[") {
			t.Errorf("%s without colour has escapes:\n%s", name, out)
		}
		f, out, _ = testFactory(false)
		f.IO.SetColorEnabled(true)
		if Run(f, append([]string{"--state-dir", dir}, c.args[0], "--json")); strings.Contains(out.String(), "\x1b[") {
			t.Errorf("%s --json has escapes:\n%s", name, out)
		}
	}
	// A coloured table still fits and aligns: the escapes take no width.
	f, out, _ := testFactory(true)
	f.IO.SetColorEnabled(true)
	f.IO.SetTerminalWidth(100)
	Run(f, []string{"--state-dir", dir, "runs"})
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "RUN") {
		t.Fatalf("runs table:\n%s", out)
	}
	hdr, row := lines[0], stripANSI(lines[1])
	if i, j := strings.Index(hdr, "KIND"), strings.Index(row, "send"); i != j {
		t.Errorf("KIND at %d, send at %d:\n%s\n%s", i, j, hdr, row)
	}
	if i, j := strings.Index(hdr, "SESSION"), strings.Index(row, "main"); i != j {
		t.Errorf("SESSION at %d, main at %d:\n%s\n%s", i, j, hdr, row)
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// locks on a TTY: a table with a header and a relative "held" time.
func TestLocksTTYTable(t *testing.T) {
	dir := copyFixture(t)
	lockPath := filepath.Join(dir, "agents/ops/sessions/sessions.json.lock")
	payload := `{"pid":` + strconv.Itoa(os.Getpid()) + `,"startedAt":` + strconv.FormatInt(time.Now().Add(-90*time.Second).UnixMilli(), 10) + `}`
	if err := os.WriteFile(lockPath, []byte(payload), 0o600); err != nil {
		t.Fatal(err)
	}
	f, out, errOut := testFactory(true)
	f.Now = time.Now
	if code := Run(f, []string{"--state-dir", dir, "locks"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want a header and one row:\n%s", out)
	}
	for _, h := range []string{"KIND", "SESSION", "PID", "HELD", "ALIVE", "STALE", "PATH"} {
		if !strings.Contains(lines[0], h) {
			t.Errorf("header %q lacks %s", lines[0], h)
		}
	}
	if !strings.HasPrefix(lines[1], "store") || !strings.Contains(lines[1], strconv.Itoa(os.Getpid())) || !strings.Contains(lines[1], "1m3") {
		t.Errorf("row = %q", lines[1])
	}
}
