// Package cells formats the cells the tables of the commands and the
// terminal UI share (an age, a session's tokens). It is plain formatting:
// no cobra, no operations, so the UI uses it without the commands' package.
package cells

import (
	"fmt"
	"strconv"
	"time"
)

// AgoMs is Ago of a millisecond timestamp (an entry's updatedAt) as of now,
// "-" without one: the UPDATED cell of list's table and the UI's.
func AgoMs(ms *float64, now time.Time) string {
	if ms == nil {
		return "-"
	}
	return Ago(now.Sub(time.UnixMilli(int64(*ms))))
}

// Tokens is a session's tokens as `openclaw sessions` shows them,
// "5.8k/128k (5%)" (the share capped at 999%), "6.1k" without a context
// window, "-" when unknown.
func Tokens(total, ctx *float64) string {
	if total == nil || *total == 0 {
		return "-"
	}
	k := func(v float64) string {
		if v >= 10000 {
			return fmt.Sprintf("%.0fk", v/1000)
		}
		return fmt.Sprintf("%.1fk", v/1000)
	}
	if ctx == nil || *ctx == 0 {
		return k(*total)
	}
	pct := min(int(*total / *ctx * 100), 999)
	return fmt.Sprintf("%s/%s (%d%%)", k(*total), k(*ctx), pct)
}

// Ago is how the tables and completions show an age: "just now", "5m ago",
// "3h ago" (up to 48 hours), "2d ago".
func Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h ago"
	}
	return strconv.Itoa(int(d.Hours()/24)) + "d ago"
}
