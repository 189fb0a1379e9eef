package backend

import (
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
)

// The page around message t: t in the middle ((limit-1)/2 before it)
// where both sides have enough, else moved towards the side that has
// more, always limit messages when the transcript has them, always
// holding t.
func TestAroundWindow(t *testing.T) {
	cases := []struct{ total, target, limit, s, e int }{
		{10, 5, 3, 4, 7},  // one before, one after
		{10, 5, 4, 4, 8},  // an even page: one before, two after
		{10, 5, 1, 5, 6},  // the message alone
		{10, 0, 3, 0, 3},  // the oldest: the page starts there
		{10, 1, 5, 0, 5},  // too few before: more after
		{10, 9, 3, 7, 10}, // the newest: the newest page
		{10, 8, 5, 5, 10}, // too few after: more before
		{3, 1, 200, 0, 3}, // a page bigger than the transcript
		{1, 0, 1, 0, 1},   // one message
		{1000, 500, 1000, 0, 1000},
		{3000, 1500, 1000, 1001, 2001},
		{2000, 1500, 1000, 1000, 2000}, // one short after: one more before
	}
	for _, c := range cases {
		s, e := AroundWindow(c.total, c.target, c.limit)
		if s != c.s || e != c.e {
			t.Errorf("AroundWindow(%d, %d, %d) = [%d, %d), want [%d, %d)", c.total, c.target, c.limit, s, e, c.s, c.e)
		}
	}
	// Every place, every size: the page holds t and min(limit, total)
	// messages, and t is as near its middle as the ends allow.
	for total := 1; total <= 12; total++ {
		for limit := 1; limit <= 14; limit++ {
			for tg := range total {
				s, e := AroundWindow(total, tg, limit)
				if s < 0 || e > total || tg < s || tg >= e || e-s != min(limit, total) {
					t.Fatalf("AroundWindow(%d, %d, %d) = [%d, %d)", total, tg, limit, s, e)
				}
				if before := tg - s; before != (limit-1)/2 && s != 0 && e != total {
					t.Fatalf("AroundWindow(%d, %d, %d) = [%d, %d): %d before the message, not in the middle", total, tg, limit, s, e, before)
				}
			}
		}
	}
}

// --around reads export's forms (reused: export.ParseBound) and a
// gateway's cursor; a bad one is exit 2.
func TestParseAround(t *testing.T) {
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	for in, kind := range map[string]string{"7": "seq", "seq:7": "seq", "83a4bd51": "id", "id:7": "id", "2026-11-20T10:00:00Z": "time"} {
		a, err := ParseAround(in, now)
		if err != nil || a.bound == nil || a.bound.Kind() != kind || a.String() != in {
			t.Errorf("ParseAround(%q) = %+v, %v; want a %s bound", in, a, err, kind)
		}
	}
	gw := Anchor{TS: 5}.Cursor("s1")
	if a, err := ParseAround(gw, now); err != nil || a.gw == nil || a.gw.SessionID != "s1" || a.gw.At.TS != 5 {
		t.Errorf("a gateway's cursor: %+v, %v", a, err)
	}
	for _, bad := range []string{"seq:0", "0", "id:", "gw1.!!"} {
		if _, err := ParseAround(bad, now); apperr.CodeOf(err) != apperr.CodeUsage {
			t.Errorf("ParseAround(%q): %v, want a usage error", bad, err)
		}
	}
	if a, err := ParseAround("  ", now); err != nil || !a.None() {
		t.Errorf("blank: %+v, %v", a, err)
	}
}
