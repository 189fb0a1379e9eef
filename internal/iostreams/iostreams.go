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

// ColorScheme colours text for stdout when colour is enabled (a colour TTY,
// NO_COLOR unset) and returns it unchanged otherwise.
func (s *IOStreams) ColorScheme() ColorScheme { return ColorScheme{enabled: s.color} }

// ColorScheme wraps text in ANSI SGR sequences, or does nothing when
// colour is off.
type ColorScheme struct{ enabled bool }

// Enabled reports whether the scheme colours anything.
func (c ColorScheme) Enabled() bool { return c.enabled }

func (c ColorScheme) sgr(code, s string) string {
	if !c.enabled || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Bold is bold text.
func (c ColorScheme) Bold(s string) string { return c.sgr("1", s) }

// Green is green text.
func (c ColorScheme) Green(s string) string { return c.sgr("32", s) }

// Red is red text.
func (c ColorScheme) Red(s string) string { return c.sgr("31", s) }

// Yellow is yellow text.
func (c ColorScheme) Yellow(s string) string { return c.sgr("33", s) }

// Cyan is cyan text.
func (c ColorScheme) Cyan(s string) string { return c.sgr("36", s) }

// Magenta is magenta text.
func (c ColorScheme) Magenta(s string) string { return c.sgr("35", s) }

// Gray is dimmed text.
func (c ColorScheme) Gray(s string) string { return c.sgr("90", s) }

// Status colours a run status word: ok green, error red, timeout yellow,
// running cyan, anything else (accepted) gray.
func (c ColorScheme) Status(s string) string {
	switch s {
	case "ok", "delivered":
		return c.Green(s)
	case "error", "failed":
		return c.Red(s)
	case "timeout":
		return c.Yellow(s)
	case "running":
		return c.Cyan(s)
	}
	return c.Gray(s)
}

// Role colours a transcript role: user green, assistant cyan, tool results
// magenta, anything else gray; always bold.
func (c ColorScheme) Role(s string) string {
	if !c.enabled {
		return s
	}
	switch s {
	case "user":
		return c.sgr("1;32", s)
	case "assistant":
		return c.sgr("1;36", s)
	case "toolResult":
		return c.sgr("1;35", s)
	}
	return c.sgr("1;90", s)
}
