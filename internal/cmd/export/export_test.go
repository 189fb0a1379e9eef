package export

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/log/v2"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	xp "github.com/openclaw/sessions/internal/export"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil"
)

func factory(t *testing.T, dir string, tty bool) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	ios, _, _, _ := iostreams.Test()
	var out, errOut bytes.Buffer
	ios.Out, ios.ErrOut = &out, &errOut
	ios.SetStdoutTTY(tty)
	ios.SetStderrTTY(tty)
	return &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"},
		Flags:  &cmdutil.GlobalFlags{StateDir: dir},
		Log:    log.New(io.Discard),
		Now:    time.Now,
		Getenv: func(string) string { return "" },
	}, &out, &errOut
}

// The format: --format, else what -o's name calls for, else Markdown.
func TestFormatChosen(t *testing.T) {
	for _, c := range []struct {
		args []string
		want xp.Format
	}{
		{[]string{"main"}, xp.Markdown},
		{[]string{"main", "-o", "x.html"}, xp.HTML},
		{[]string{"main", "-o", "x.jsonl"}, xp.JSONL},
		{[]string{"main", "-o", "x.json"}, xp.JSON},
		{[]string{"main", "-o", "x.txt"}, xp.Markdown},
		{[]string{"main", "-o", "x.html", "--format", "md"}, xp.Markdown},
	} {
		f, _, _ := factory(t, t.TempDir(), false)
		var got *Options
		cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
		cmd.SetArgs(c.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got.FormatChosen() != c.want {
			t.Errorf("%v: format %s, want %s", c.args, got.FormatChosen(), c.want)
		}
	}
}

// A terminal shows the progress of a long export on stderr, ended with a
// newline; a short one says nothing but what it wrote.
func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := progress(&b)
	p(1000, false)
	p(2000, false)
	p(2000, true)
	if b.String() != "\rexport: 1000 messages\rexport: 2000 messages\rexport: 2000 messages\n" {
		t.Errorf("progress %q", b.String())
	}
	b.Reset()
	progress(&b)(17, true)
	if b.Len() != 0 {
		t.Errorf("a short export's progress: %q", b.String())
	}
}

// -o on a terminal: the file written whole (mode 0600), one line on stderr;
// stdout carries nothing.
func TestWriteFileOnTTY(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
		t.Fatal(err)
	}
	f, out, errOut := factory(t, dir, true)
	file := filepath.Join(t.TempDir(), "main.html")
	o := &Options{f: f, Ref: "main", Output: file, format: xp.HTML}
	if err := run(o); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v %v", file, fi.Mode(), err)
	}
	if out.Len() != 0 || !strings.HasPrefix(errOut.String(), "Wrote 17 messages of main to "+file+" (html)\n") {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}
	if es, _ := os.ReadDir(filepath.Dir(file)); len(es) != 1 {
		t.Errorf("left beside the file: %v", es)
	}
}
