package index

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/log/v2"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil"
)

func factory(t *testing.T, dir string, tty, json bool) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	ios, _, _, _ := iostreams.Test()
	var out, errOut bytes.Buffer
	ios.Out, ios.ErrOut = &out, &errOut
	ios.SetStdoutTTY(tty)
	ios.SetStderrTTY(tty)
	return &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"},
		Flags:  &cmdutil.GlobalFlags{StateDir: dir, JSON: json},
		Log:    log.New(io.Discard),
		Now:    time.Now,
		Getenv: func(string) string { return "" },
	}, &out, &errOut
}

// A build on a terminal draws its progress bar on stderr, ended with a
// newline, and the status on stdout; on a pipe, or with --json on a
// terminal, stderr carries no bar.
func TestBuildProgressOnATerminalOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())

	f, out, errOut := factory(t, dir, true, false)
	if err := run(t.Context(), &Options{f: f, Rebuild: true}); err != nil {
		t.Fatal(err)
	}
	bar, rest, ok := strings.Cut(errOut.String(), "\n")
	if !ok || !strings.HasPrefix(bar, "\rindex: [") || !strings.Contains(bar, "\rindex: [####################] 100%") ||
		!strings.Contains(bar, " in 0:0") || !strings.HasPrefix(rest, "Indexed 12 transcript(s) whole") {
		t.Errorf("stderr on a terminal: %q", errOut.String())
	}
	if !strings.HasPrefix(out.String(), "Search index of "+dir+" (12 transcripts)\n") || !strings.Contains(out.String(), "fresh    yes") {
		t.Errorf("stdout on a terminal: %q", out.String())
	}

	for _, c := range []struct {
		name      string
		tty, json bool
	}{{"pipe", false, false}, {"json", true, true}} {
		f, out, errOut := factory(t, dir, c.tty, c.json)
		if err := run(t.Context(), &Options{f: f, Rebuild: true}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(errOut.String(), "index: [") || strings.Contains(errOut.String(), "\r") {
			t.Errorf("%s: a bar on stderr: %q", c.name, errOut.String())
		}
		if out.Len() == 0 {
			t.Errorf("%s: no status", c.name)
		}
	}
}
