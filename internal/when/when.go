// Package when reads the --since/--until values of the commands that filter
// by time (search, usage).
package when

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/lazyre"
)

var durRe = lazyre.New(`^(\d+)(s|m|h|d|w)$`)

// Parse reads a --since/--until value: a duration back from now (30m,
// 12h, 7d, 2w, or any Go duration like 1h30m), a date (2026-11-21, the start
// of that day in loc — or, for an until bound, its end: the next midnight),
// or an RFC 3339 time. It returns ms since the epoch; "" is 0 (no bound).
func Parse(s string, now time.Time, loc *time.Location, until bool) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil // no bound
	}
	if m := durRe.FindStringSubmatch(s); m != nil {
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || n > 1e6 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		unit := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}[m[2]]
		return now.Add(-time.Duration(n) * unit).UnixMilli(), nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d).UnixMilli(), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		if until {
			t = t.AddDate(0, 0, 1)
		}
		return t.UnixMilli(), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("invalid time %q (a duration like 7d, 12h, 30m; a date 2006-01-02; or RFC 3339)", s)
}
