package cmdutil

import (
	"errors"
	"strconv"
	"strings"
)

// Limit is the value of a listing's --limit flag: a positive number of rows,
// or "all" (no limit), as OpenClaw 2026.9's `openclaw sessions --limit <n|all>`.
type Limit struct {
	N   int  // the limit when !All
	All bool // --limit all
}

// Max is the number of rows the limit lets through (-1 for all).
func (l Limit) Max() int {
	if l.All {
		return -1
	}
	return l.N
}

// Applied is the limit in force as a listing's JSON reports it
// ("limitApplied"): the number, or nil (null) for --limit all.
func (l Limit) Applied() *int {
	if l.All {
		return nil
	}
	n := l.N
	return &n
}

// Reached reports whether n rows fill the limit.
func (l Limit) Reached(n int) bool { return !l.All && n >= l.N }

// Check is the range check of a --limit flag (run in RunE, like IntRange):
// a number must be at least 1.
func (l Limit) Check(name string) error {
	if l.All {
		return nil
	}
	return IntRange(name, l.N, 1, 0)
}

// LimitFlag is a pflag.Value for --limit N|all.
type LimitFlag struct{ L *Limit }

// String is the flag's current value.
func (f LimitFlag) String() string {
	if f.L == nil {
		return ""
	}
	if f.L.All {
		return "all"
	}
	return strconv.Itoa(f.L.N)
}

// Set parses a number or "all" (Check does the range).
func (f LimitFlag) Set(s string) error {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "all") {
		*f.L = Limit{All: true}
		return nil
	}
	n, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("number out of range")
	}
	if err != nil {
		return errors.New(`not a number or "all"`)
	}
	*f.L = Limit{N: n}
	return nil
}

// Type names the value in help.
func (f LimitFlag) Type() string { return "N|all" }
