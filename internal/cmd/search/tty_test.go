package search_test

import (
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

func runTTY(t *testing.T, color bool, args ...string) (string, string, int) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	ios.SetStdoutTTY(true)
	ios.SetStderrTTY(true)
	ios.SetColorEnabled(color)
	state := testutil.Fixture(t)
	f := &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(string) string { return "" }, Home: filepath.Dir(state)},
		Flags:  &cmdutil.GlobalFlags{},
		Now:    func() time.Time { return time.UnixMilli(1795236215141).Add(2 * time.Hour) },
		Getenv: func(string) string { return "" },
	}
	code := cli.Run(f, append([]string{"--state-dir", state, "search"}, args...))
	return out.String(), errOut.String(), code
}

// On a colour terminal the match is bold inside its snippet; without colour
// there is no escape at all; nothing found says so on stderr.
func TestTerminalOutput(t *testing.T) {
	out, _, code := runTTY(t, true, "peer generator", "-C", "1")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"\x1b[1mmain\x1b[0m", // the key
		"MOCK reply #1: Hello from the \x1b[1mpeer generator\x1b[0m",
		"Hello from the \x1b[1mpeer generator\x1b[0m",
		"user: Check the identity file", // context after the assistant's hit
		"2h ago",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	out, _, _ = runTTY(t, false, "peer generator")
	if strings.Contains(out, "\x1b[") || !strings.Contains(out, "    MOCK reply #1: Hello from the peer generator\n") {
		t.Errorf("without colour:\n%q", out)
	}
	out, _, _ = runTTY(t, false, "MOCK", "--limit", "1")
	if !strings.Contains(out, "1 of 18 hits") {
		t.Errorf("a cut list says how many there are:\n%s", out)
	}
	out, errOut, code := runTTY(t, true, "nothing like this")
	if code != 0 || out != "" || strings.TrimSpace(errOut) != "No matches." {
		t.Errorf("no match: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
