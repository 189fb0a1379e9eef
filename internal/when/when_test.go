package when

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in    string
		until bool
		want  time.Time
	}{
		{"7d", false, now.AddDate(0, 0, -7)},
		{"12h", false, now.Add(-12 * time.Hour)},
		{"1h30m", false, now.Add(-90 * time.Minute)},
		{"2w", false, now.AddDate(0, 0, -14)},
		{"2026-11-20", false, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)},
		{"2026-11-20", true, time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)},
		{"2026-11-20T10:00:00Z", true, time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)},
	} {
		got, err := Parse(c.in, now, time.UTC, c.until)
		if err != nil || got != c.want.UnixMilli() {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.in, time.UnixMilli(got).UTC(), err, c.want)
		}
	}
	for _, bad := range []string{"yesterday", "-3d", "2026-13-01"} {
		if _, err := Parse(bad, now, time.UTC, false); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestEmptyIsNoBound(t *testing.T) {
	if got, err := Parse("  ", time.Now(), time.UTC, true); got != 0 || err != nil {
		t.Fatalf("Parse(blank) = %d, %v; want 0, nil", got, err)
	}
}
