package backend

import (
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/export"
)

// Around names the message a page is read around (history --around): a
// line's id (what a search hit gives), a message's sequence number, a
// time (the first message from then on), or a history cursor — as
// export's --from reads them (export.ParseBound) — or a gateway's cursor.
// The zero Around is none.
type Around struct {
	raw   string
	bound *export.Bound  // every form but a gateway's cursor
	gw    *GatewayCursor // a gateway's cursor
}

// None reports whether there is no message to read around.
func (a Around) None() bool { return a.raw == "" }

// String is the value as given.
func (a Around) String() string { return a.raw }

// Bound is the message named in one of export's forms (nil for a
// gateway's cursor, or none).
func (a Around) Bound() *export.Bound { return a.bound }

// Gateway is the message named by a gateway's cursor (nil otherwise).
func (a Around) Gateway() *GatewayCursor { return a.gw }

// ParseAround reads an --around value (exit 2 when it names nothing a
// page can be read around); "" is none.
func ParseAround(s string, now time.Time) (Around, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Around{}, nil
	}
	if IsGatewayCursor(s) {
		sid, a, err := ParseGatewayCursor(s)
		if err != nil {
			return Around{}, apperr.Usagef("invalid --around %q: not a cursor this command printed; pass a message's id, its sequence number or a cursor as printed", s)
		}
		return Around{raw: s, gw: &GatewayCursor{SessionID: sid, At: a}}, nil
	}
	b, err := export.ParseBound("--around", s, false, now, ExportCursorPlace)
	if err != nil {
		return Around{}, err
	}
	return Around{raw: s, bound: b}, nil
}

// AroundWindow is the page of limit messages around message t of total
// (indexes in the transcript's messages as the page counts them): [s, e),
// with t in the middle — (limit-1)/2 messages before it, the rest after —
// where there are enough on both sides, else moved towards the end that
// has more, so the page holds limit messages whenever total does.
func AroundWindow(total, t, limit int) (s, e int) {
	if limit < 1 {
		limit = 1
	}
	s = max(0, t-(limit-1)/2)
	e = s + limit
	if e > total {
		e = total
		s = max(0, e-limit)
	}
	return s, e
}

// CursorAt is the --before cursor naming message j of the page — j may
// run past the page's last message into the newer ones a page read around
// a message knows of — "" when it is not known.
func (p *HistoryPage) CursorAt(j int) string {
	if j < len(p.Messages) {
		return p.CursorBefore(j)
	}
	k := j - len(p.Messages)
	if p.newerAt == nil || k < 0 || k >= p.Newer {
		return ""
	}
	return p.newerAt(k)
}
