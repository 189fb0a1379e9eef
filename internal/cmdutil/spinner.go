package cmdutil

import (
	"io"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// spinnerFrames and spinnerDelay are the wait spinner's braille frames
// and speed (briandowns/spinner's character set 14 at 100 ms, which drew
// it before: its package and fatih/color, for the one colour it used,
// checked the terminal and built tables at every start, whatever the
// command).
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

const spinnerDelay = 100 * time.Millisecond

// spinner draws frames on one terminal line, each "\r" + frame + suffix
// over the last (erased with "\r\x1b[K", one line up for each line the
// last one wrapped to), the cursor hidden while it spins: the bytes
// briandowns/spinner wrote.
type spinner struct {
	w      io.Writer
	suffix string
	color  bool                                 // the frame in white (SGR 37)
	width  func() int                           // the terminal's columns (math.MaxInt: unknown)
	after  func(time.Duration) <-chan time.Time // time.After; tests step it

	mu     sync.Mutex
	active bool
	last   string // the last line drawn, without colour
	stop   chan struct{}
	done   chan struct{}
}

func newSpinner(w io.Writer, suffix string, color bool) *spinner {
	return &spinner{w: w, suffix: suffix, color: color, width: stdinWidth, after: time.After}
}

// stdinWidth is the width of the terminal on stdin, as briandowns/spinner
// measured it for erasing a wrapped line (unbounded when stdin is not a
// terminal).
func stdinWidth() int {
	if term.IsTerminal(0) {
		if w, _, err := term.GetSize(0); err == nil {
			return w
		}
	}
	return math.MaxInt
}

// Start hides the cursor and draws a frame every spinnerDelay until Stop.
func (s *spinner) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active {
		return
	}
	s.active = true
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	io.WriteString(s.w, "\x1b[?25l")
	go s.spin(s.stop, s.done)
}

func (s *spinner) spin(stop, done chan struct{}) {
	defer close(done)
	for i := 0; ; i = (i + 1) % len(spinnerFrames) {
		s.mu.Lock()
		if !s.active {
			s.mu.Unlock()
			return
		}
		s.erase()
		frame := spinnerFrames[i]
		s.last = "\r" + frame + s.suffix
		if s.color {
			frame = "\x1b[37m" + frame + "\x1b[0m"
		}
		io.WriteString(s.w, "\r"+frame+s.suffix)
		s.mu.Unlock()
		select {
		case <-stop:
			return
		case <-s.after(spinnerDelay):
		}
	}
}

// Stop shows the cursor again and erases the line; the spinner draws
// nothing after it returns.
func (s *spinner) Stop() {
	s.mu.Lock()
	if !s.active {
		s.mu.Unlock()
		return
	}
	s.active = false
	io.WriteString(s.w, "\x1b[?25h")
	s.erase()
	close(s.stop)
	done := s.done
	s.mu.Unlock()
	<-done
}

// erase clears the last line drawn (the caller holds s.mu).
func (s *spinner) erase() {
	var b strings.Builder
	b.WriteString("\r\x1b[K")
	for i := 1; i < linesOf(s.last, s.width()); i++ {
		b.WriteString("\x1b[F\x1b[K")
	}
	io.WriteString(s.w, b.String())
	s.last = ""
}

// linesOf is how many terminal lines of width columns text takes, as
// briandowns/spinner counted them: a column for each byte of UTF-8
// (over-counting wide frames errs on erasing a line too many only for
// text about as wide as the terminal), ANSI sequences none.
func linesOf(text string, width int) int {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		n++
		w, ansi := 0, false
		for _, r := range line {
			switch {
			case ansi:
				ansi = !(r >= 0x40 && r <= 0x5a || r == 0x5e || r >= 0x60 && r <= 0x7e)
			case r == '\x1b':
				ansi = true
			default:
				w += utf8.RuneLen(r)
			}
		}
		if w > width {
			n += int(float64(w) / float64(width))
		}
	}
	return n
}
