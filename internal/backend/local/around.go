package local

import (
	"errors"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/export"
	"github.com/openclaw/sessions/internal/transcript"
)

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
func seekAround(stream func(func(transcript.Line) error) error, sid string, a backend.Around, limit int, tools bool, name string) (*aroundPlan, error) {
	if a.Gateway() != nil {
		return nil, apperr.Usagef("--around: the cursor was made over a gateway; pass it with the same --gateway or --context")
	}
	sk := export.NewSeeker(a.Bound())
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
		return nil, apperr.Usagef("--around %s names a tool result, which this page leaves out; add --include-tools", a.String())
	}
	if t < 0 {
		return nil, apperr.NotFoundf("--around %s: no such message in %s", a.String(), name)
	}
	_, e := backend.AroundWindow(len(places), t, limit)
	p := &aroundPlan{raw: a.String(), target: places[t].pos}
	if e < len(places) {
		p.before = places[e]
		p.newer = places[e:min(len(places), e+limit+1)]
	}
	return p, nil
}

// apply makes opts read the page the plan names.
func (p *aroundPlan) apply(opts *transcript.Options) {
	opts.Before, opts.BeforeCheck = p.before.pos, p.before.check
	opts.More = true
}

// finish marks the page's target among the positions the page's read
// returned, and gives it the places of the messages after it.
func (p *aroundPlan) finish(page *backend.HistoryPage, positions []int64, era transcript.Era, sid, name string) error {
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
	page.SetNewer(len(newer), func(k int) string {
		return transcript.Cursor{Era: era, SessionID: sid, Pos: newer[k].pos, Check: newer[k].check}.String()
	})
	return nil
}
