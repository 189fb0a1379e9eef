package backend

import (
	"errors"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/export"
	"github.com/openclaw/sessions/internal/transcript"
)

// Around names the message a page is read around (history --around): a
// line's id (what a search hit gives), a message's sequence number, a
// time (the first message from then on), or a history cursor — as
// export's --from reads them (export.ParseBound) — or a gateway's cursor.
// The zero Around is none.
type Around struct {
	raw   string
	bound *export.Bound  // every form but a gateway's cursor
	gw    *gatewayCursor // a gateway's cursor
}

// None reports whether there is no message to read around.
func (a Around) None() bool { return a.raw == "" }

// String is the value as given.
func (a Around) String() string { return a.raw }

// ParseAround reads an --around value (exit 2 when it names nothing a
// page can be read around); "" is none.
func ParseAround(s string, now time.Time) (Around, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Around{}, nil
	}
	if IsGatewayCursor(s) {
		sid, a, err := parseGatewayCursor(s)
		if err != nil {
			return Around{}, apperr.Usagef("invalid --around %q: not a cursor this command printed; pass a message's id, its sequence number or a cursor as printed", s)
		}
		return Around{raw: s, gw: &gatewayCursor{sessionID: sid, at: a}}, nil
	}
	b, err := export.ParseBound("--around", s, false, now, ExportCursorPlace)
	if err != nil {
		return Around{}, err
	}
	return Around{raw: s, bound: b}, nil
}

// aroundWindow is the page of limit messages around message t of total
// (indexes in the transcript's messages as the page counts them): [s, e),
// with t in the middle — (limit-1)/2 messages before it, the rest after —
// where there are enough on both sides, else moved towards the end that
// has more, so the page holds limit messages whenever total does.
func aroundWindow(total, t, limit int) (s, e int) {
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

// place is one message's place in a local transcript: what a cursor names.
type place struct {
	pos   int64
	check uint32
}

// aroundPlan is where a local page around a message lies: the page is the
// limit messages before before (the newest page when before is zero),
// target is the message's place, newer the places of the messages after
// the page (at most limit+1 of them: the one a cursor of the next newer
// page names is the last).
type aroundPlan struct {
	raw    string // the --around value
	before place
	target int64
	newer  []place
}

// errAroundStop ends a seek's stream once it has read enough.
var errAroundStop = errors.New("around: found")

// seekAround reads a local transcript (stream: its lines in order, of
// session sid) up to where the page around the message a names ends, and
// a little beyond, and plans that page: what history --around reads with
// the same reader as any page, so the page is the one --before gives.
// name says the transcript in errors.
func seekAround(stream func(func(transcript.Line) error) error, sid string, a Around, limit int, tools bool, name string) (*aroundPlan, error) {
	if a.gw != nil {
		return nil, apperr.Usagef("--around: the cursor was made over a gateway; pass it with the same --gateway or --context")
	}
	sk := export.NewSeeker(a.bound)
	var places []place // the page's messages so far (tool results left out unless asked)
	t := -1
	var toolTarget bool
	err := stream(func(ln transcript.Line) error {
		switch ln.Status {
		case transcript.StatusTorn, transcript.StatusOversize:
			return nil // as an export passes them over
		}
		hit := t < 0 && sk.Next(sid, &export.SourceLine{Pos: ln.Pos, Check: ln.Check, Raw: ln.Raw, Message: ln.Message, Unterminated: !ln.Newline})
		if ln.Message == nil {
			return nil
		}
		if !tools {
			if _, st := transcript.Classify(ln.Raw, false); st != transcript.StatusMessage {
				if hit {
					toolTarget = true
					return errAroundStop
				}
				return nil
			}
		}
		if hit {
			t = len(places)
		}
		places = append(places, place{pos: ln.Pos, check: ln.Check})
		if t >= 0 && len(places) > max(0, t-(limit-1)/2)+2*limit {
			return errAroundStop // the page's end and the next newer page's cursor are known
		}
		return nil
	})
	if err != nil && !errors.Is(err, errAroundStop) {
		return nil, err
	}
	if toolTarget {
		return nil, apperr.Usagef("--around %s names a tool result, which this page leaves out; add --include-tools", a.raw)
	}
	if t < 0 {
		return nil, apperr.NotFoundf("--around %s: no such message in %s", a.raw, name)
	}
	_, e := aroundWindow(len(places), t, limit)
	p := &aroundPlan{raw: a.raw, target: places[t].pos}
	if e < len(places) {
		p.before = places[e]
		p.newer = places[e:min(len(places), e+limit+1)]
	}
	return p, nil
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

// apply makes opts read the page the plan names.
func (p *aroundPlan) apply(opts *transcript.Options) {
	opts.Before, opts.BeforeCheck = p.before.pos, p.before.check
	opts.More = true
}

// finish marks the page's target among the positions the page's read
// returned, and gives it the places of the messages after it.
func (p *aroundPlan) finish(page *HistoryPage, positions []int64, era transcript.Era, sid, name string) error {
	page.Target = -1
	for i, pos := range positions {
		if pos == p.target {
			page.Target = i
		}
	}
	if page.Target < 0 {
		// Only an append between the seek and the read (the newest page
		// moved on by more than half a page) or a rewrite gets here.
		return apperr.Statef("--around %s: %s changed while it was read; try again", p.raw, name)
	}
	newer := p.newer
	page.Newer = len(newer)
	page.newerAt = func(k int) string {
		return transcript.Cursor{Era: era, SessionID: sid, Pos: newer[k].pos, Check: newer[k].check}.String()
	}
	return nil
}
