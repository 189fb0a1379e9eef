package cmdutil

import (
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil"
)

// steppedSpinner is a spinner whose delay between frames the test ends:
// each receive from ticks is one frame's delay over.
func steppedSpinner(w *testutil.SyncBuffer, suffix string, color bool, width int) (*spinner, chan time.Time, chan struct{}) {
	ticks, waiting := make(chan time.Time), make(chan struct{}, 16)
	sp := newSpinner(w, suffix, color)
	sp.width = func() int { return width }
	sp.after = func(time.Duration) <-chan time.Time { waiting <- struct{}{}; return ticks }
	return sp, ticks, waiting
}

// TestSpinnerBytes: the wait spinner writes what briandowns/spinner wrote
// (v1.23.2, character set 14, white): the cursor hidden, each frame drawn
// over the erased last one, and at Stop the cursor shown and the line
// erased.
func TestSpinnerBytes(t *testing.T) {
	for _, color := range []bool{false, true} {
		w := &testutil.SyncBuffer{}
		sp, ticks, waiting := steppedSpinner(w, " waiting for agent:main:main", color, 200)
		sp.Start()
		<-waiting // frame 0 drawn
		ticks <- time.Time{}
		<-waiting // frame 1 drawn
		sp.Stop()
		frame := func(f string) string {
			if color {
				return "\x1b[37m" + f + "\x1b[0m"
			}
			return f
		}
		want := "\x1b[?25l" +
			"\r\x1b[K" + "\r" + frame("⠋") + " waiting for agent:main:main" +
			"\r\x1b[K" + "\r" + frame("⠙") + " waiting for agent:main:main" +
			"\x1b[?25h" + "\r\x1b[K"
		if got := w.String(); got != want {
			t.Errorf("color %v: spinner wrote\n%q\nwant\n%q", color, got, want)
		}
	}
}

// TestSpinnerErasesWrappedLine: a line wider than the terminal is erased
// with one "\x1b[F\x1b[K" for each line it wrapped onto.
func TestSpinnerErasesWrappedLine(t *testing.T) {
	w := &testutil.SyncBuffer{}
	suffix := " waiting for " + strings.Repeat("k", 40) // 1+3+13+40 = 57 columns as counted
	sp, _, waiting := steppedSpinner(w, suffix, false, 20)
	sp.Start()
	<-waiting
	sp.Stop()
	want := "\x1b[?25l\r\x1b[K\r⠋" + suffix + "\x1b[?25h\r\x1b[K" + "\x1b[F\x1b[K\x1b[F\x1b[K"
	if got := w.String(); got != want {
		t.Errorf("spinner wrote\n%q\nwant\n%q", got, want)
	}
	if n := linesOf("\x1b[37mab\x1b[0m\ncd", 1); n != 6 {
		t.Errorf("linesOf: %d lines, want 6 (2 lines of 2 columns at 1 column: ANSI sequences take none)", n)
	}
}

// TestWaitSpinnerOnlyOnTerminals: the spinner is shown only when stderr
// and stdout are terminals and the output is not JSON.
func TestWaitSpinnerOnlyOnTerminals(t *testing.T) {
	for _, c := range []struct{ stdout, stderr, json, on bool }{
		{true, true, false, true}, {false, true, false, false}, {true, false, false, false}, {false, false, false, false},
		{true, true, true, false},
	} {
		io, _, _, _ := iostreams.Test()
		io.SetStdoutTTY(c.stdout)
		io.SetStderrTTY(c.stderr)
		f := &Factory{IO: io, Flags: &GlobalFlags{JSON: c.json}}
		if got := f.WaitSpinner() != nil; got != c.on {
			t.Errorf("stdout TTY %v, stderr TTY %v, --json %v: spinner %v, want %v", c.stdout, c.stderr, c.json, got, c.on)
		}
	}
}
