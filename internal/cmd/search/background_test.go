//go:build unix

package search_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil"
)

// A search on a terminal that starts a build of the index in the
// background says so once on stderr; with --json (or on a pipe) it says
// nothing. The builder is a script ($SESSIONS_RUNNER_EXE) that does nothing.
func TestBackgroundBuildNotice(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "fake-sessions")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SESSIONS_RUNNER_EXE", exe)
	state := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(testutil.Fixture(t), state); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(state, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 0; b.Len() < 6<<20; i++ {
		fmt.Fprintf(&b, `{"type":"message","id":"bg%d","timestamp":"2026-11-21T10:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"filler %d %s"}]}}`+"\n",
			i, i, strings.Repeat("lorem ipsum ", 80))
	}
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	f.Close()
	run := func(stderrTTY bool, args ...string) (string, int) {
		t.Helper()
		t.Setenv("XDG_CACHE_HOME", t.TempDir()) // a new unbuilt index each time
		ios, _, _, errOut := iostreams.Test()
		ios.SetStdoutTTY(stderrTTY)
		ios.SetStderrTTY(stderrTTY)
		cf := &cmdutil.Factory{
			IO:     ios,
			Env:    config.Env{Getenv: func(string) string { return "" }, Home: filepath.Dir(state)},
			Flags:  &cmdutil.GlobalFlags{},
			Now:    func() time.Time { return time.UnixMilli(1795236215141) },
			Getenv: func(string) string { return "" },
		}
		code := cli.Run(cf, append([]string{"--state-dir", state, "search", "--all-agents", "filler 77 lorem"}, args...))
		return errOut.String(), code
	}
	const notice = "Building the search index in the background (sessions index shows how far it has got); until then search scans.\n"
	if errOut, code := run(true); code != 0 || strings.Count(errOut, notice) != 1 {
		t.Fatalf("terminal: exit %d, stderr %q", code, errOut)
	}
	if errOut, code := run(true, "--json"); code != 0 || strings.Contains(errOut, "Building") {
		t.Fatalf("--json: exit %d, stderr %q", code, errOut)
	}
	if errOut, code := run(false); code != 0 || strings.Contains(errOut, "Building") {
		t.Fatalf("a pipe: exit %d, stderr %q", code, errOut)
	}
}
