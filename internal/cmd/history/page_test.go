package history

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/transcript"
)

// runPage runs `history main` once (not --follow) with stdout a terminal or
// not, and returns stdout and stderr.
func runPage(t *testing.T, dir string, tty bool, tweak func(*Options)) (string, string) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	var out, errOut bytes.Buffer
	ios.Out, ios.ErrOut = &out, &errOut
	ios.SetStdoutTTY(tty)
	ios.SetStderrTTY(tty)
	f := &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"},
		Flags:  &cmdutil.GlobalFlags{StateDir: dir},
		Log:    log.New(io.Discard),
		Now:    time.Now,
		Getenv: func(string) string { return "" },
	}
	o := &Options{f: f, Ref: "main", Limit: defaultLimit}
	if tweak != nil {
		tweak(o)
	}
	if err := run(o); err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String()
}

var hintRE = regexp.MustCompile(`(?m)^older messages: sessions history main --limit 3 --include-tools --format markdown --before ([A-Za-z0-9_-]+)\n`)

// On a terminal, text and markdown output say on stderr how to get the page
// before; the command it prints works; stdout carries data only.
func TestNextPageHintOnTTY(t *testing.T) {
	dir := copyState(t)
	limit3 := func(o *Options) { o.Limit, o.IncludeTools, o.Format = 3, true, FormatMarkdown }
	stdout, stderr := runPage(t, dir, true, limit3)
	m := hintRE.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no next-page hint on stderr:\n%s", stderr)
	}
	if strings.Contains(stdout, "older messages") || strings.Contains(stdout, m[1]) {
		t.Fatalf("the hint reached stdout:\n%s", stdout)
	}
	c, err := transcript.ParseCursor(m[1])
	if err != nil || c.Era != transcript.EraFile || c.SessionID != "c040fd20-0a1c-4ce0-924c-6e695a32eecb" {
		t.Fatalf("hint cursor %q: %+v, %v", m[1], c, err)
	}
	// The page before it: 3 older messages, and a hint further back.
	stdout2, stderr2 := runPage(t, dir, true, func(o *Options) { limit3(o); o.Before = m[1] })
	if stdout2 == stdout || !strings.Contains(stdout2, "## ") {
		t.Fatalf("the page before is not another page:\n%s", stdout2)
	}
	if m2 := hintRE.FindStringSubmatch(stderr2); m2 == nil || m2[1] == m[1] {
		t.Fatalf("no new hint on the page before: %q", stderr2)
	}
	// Piped: no hint (scripts use --json and nextCursor).
	if _, stderr := runPage(t, dir, false, limit3); strings.Contains(stderr, "older messages") {
		t.Fatalf("hint when not on a terminal: %q", stderr)
	}
	// The whole transcript in one page: no hint.
	if _, stderr := runPage(t, dir, true, nil); strings.Contains(stderr, "older messages") {
		t.Fatalf("hint without older messages: %q", stderr)
	}
}

func TestNextCommandQuotes(t *testing.T) {
	o := &Options{Limit: defaultLimit, Raw: true}
	got := o.nextCommand("agent:main:signal:group:it's here", "CUR")
	want := `sessions history 'agent:main:signal:group:it'\''s here' --raw --before CUR`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
