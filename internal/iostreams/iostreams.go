// Package iostreams carries stdin/stdout/stderr with what commands need to
// know about them: TTY or not, colour, terminal width. Commands never touch
// os.Stdout directly, so tests can swap the streams.
package iostreams

import (
	"bytes"
	"io"
	"os"
	"strconv"

	"golang.org/x/term"
)

// IOStreams is the set of standard streams of one invocation.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdoutTTY bool
	stderrTTY bool
	color     bool
	width     int
	getenv    func(string) string
}

func isTTY(f *os.File) bool { return f != nil && term.IsTerminal(int(f.Fd())) }

// System returns the process's streams.
func System() *IOStreams {
	s := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, getenv: os.Getenv}
	s.stdoutTTY = isTTY(os.Stdout)
	s.stderrTTY = isTTY(os.Stderr)
	s.color = colorWanted(s.stdoutTTY, os.Getenv)
	if s.stdoutTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
			s.width = w
		}
	}
	if s.width == 0 {
		if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
			s.width = c
		}
	}
	return s
}

// colorWanted: colour only on a colour TTY; NO_COLOR wins; CLICOLOR_FORCE
// forces it; TERM=dumb disables it.
func colorWanted(tty bool, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" {
		return false
	}
	if v := getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
		return true
	}
	if getenv("TERM") == "dumb" {
		return false
	}
	return tty
}

// Test returns streams backed by buffers (not a TTY).
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, getenv: func(string) string { return "" }, width: 80}, in, out, errOut
}

// IsStdoutTTY reports whether stdout is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether stderr is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// SetStdoutTTY overrides TTY detection (tests).
func (s *IOStreams) SetStdoutTTY(v bool) { s.stdoutTTY = v }

// SetStderrTTY overrides TTY detection (tests).
func (s *IOStreams) SetStderrTTY(v bool) { s.stderrTTY = v }

// ColorEnabled reports whether stdout output may use colour.
func (s *IOStreams) ColorEnabled() bool { return s.color }

// SetColorEnabled overrides colour detection (tests).
func (s *IOStreams) SetColorEnabled(v bool) { s.color = v }

// TerminalWidth is the width of the stdout terminal (80 when unknown).
func (s *IOStreams) TerminalWidth() int {
	if s.width > 0 {
		return s.width
	}
	return 80
}

// SetTerminalWidth overrides the width (tests).
func (s *IOStreams) SetTerminalWidth(w int) { s.width = w }
