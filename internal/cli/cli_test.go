package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
)

func fixture(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../testdata/state-2026.1.30")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func testFactory(tty bool) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	ios, _, out, errOut := iostreams.Test()
	ios.SetStdoutTTY(tty)
	ios.SetTerminalWidth(120)
	env := map[string]string{}
	return &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(k string) string { return env[k] }, Home: "/nonexistent-home"},
		Flags:  &cmdutil.GlobalFlags{},
		Now:    func() time.Time { return time.UnixMilli(1795236254224 + 90*60*1000) },
		Getenv: func(k string) string { return env[k] },
	}, out, errOut
}

func TestListTTYTable(t *testing.T) {
	f, out, errOut := testFactory(true)
	if code := Run(f, []string{"--state-dir", fixture(t), "list", "--all-agents"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 12 {
		t.Fatalf("want header + 11 rows, got %d:\n%s", len(lines), out)
	}
	// 120 columns hold every column but the agent (it is in the key): the
	// keys are never cut.
	if !strings.HasPrefix(lines[0], "KEY") || strings.Contains(lines[0], "AGENT") || !strings.Contains(lines[0], "TOKENS") {
		t.Errorf("header = %q", lines[0])
	}
	if !strings.Contains(out.String(), "agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2 ") {
		t.Errorf("a key was cut:\n%s", out)
	}
	if !strings.Contains(out.String(), "1h ago") || !strings.Contains(out.String(), "6.8k/128k (5%)") {
		t.Errorf("no relative age / token column:\n%s", out)
	}
	for _, l := range lines {
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing space in %q", l)
		}
		if w := len([]rune(l)); w > 120 {
			t.Errorf("line wider than the terminal (%d): %q", w, l)
		}
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Error("colour escape codes in a no-colour table")
	}
}

func TestListTTYNarrowKeepsKeys(t *testing.T) {
	f, out, _ := testFactory(true)
	f.IO.SetTerminalWidth(70)
	if code := Run(f, []string{"--state-dir", fixture(t), "list"}); code != 0 {
		t.Fatal(code)
	}
	for _, l := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		if w := len([]rune(l)); w > 70 {
			t.Errorf("line wider than 70 (%d): %q", w, l)
		}
	}
	// The keys are whole; the other columns gave way.
	if !strings.Contains(out.String(), "agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2 ") || strings.Contains(out.String(), "agent:mai…") {
		t.Errorf("long keys cut:\n%s", out)
	}
}

func TestFlagErrorsAreUsage(t *testing.T) {
	for _, args := range [][]string{
		{"list", "--limit", "x"},
		{"list", "extra"},
		{"history"},
		{"history", "a", "b"},
		{"history", "main", "--limit", "1001"},
		{"--log-level", "loud", "list"},
		{"--profile", "../x", "list"},
		{"bogus"},
	} {
		f, _, errOut := testFactory(false)
		if code := Run(f, append([]string{"--state-dir", fixture(t)}, args...)); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, errOut)
		}
	}
}

func TestJSONErrorDocument(t *testing.T) {
	f, out, _ := testFactory(false)
	code := Run(f, []string{"--state-dir", filepath.Join(os.TempDir(), "definitely-missing-state"), "list", "--json"})
	if code != 10 {
		t.Fatalf("exit %d", code)
	}
	if !strings.HasPrefix(out.String(), "{") || !strings.Contains(out.String(), `"status": "error"`) {
		t.Errorf("stdout = %q", out)
	}
}
