package local

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcript"
	"github.com/openclaw/sessions/internal/transcripts"
)

// localSession is what the local reader keeps of a session between
// History and Follow.
type localSession struct {
	t  *state.Target
	s  *state.State
	tp string // the transcript file ("" for a SQLite-era session)
	// off is where the page's read ended (a line boundary, or the next
	// event seq): Follow prints what comes after it.
	off int64
	// orphan: the session is an orphan transcript (no entry; t is nil).
	orphan *transcripts.OrphanAt
}

// Orphan is the orphan transcript behind the session (backend.Session's
// Orphan asks its handle), nil for a session of an entry.
func (ls *localSession) Orphan() *transcripts.OrphanAt { return ls.orphan }

// handle is what this host kept of sess when it resolved it (nil when
// another host did).
func handle(sess *backend.Session) *localSession {
	ls, _ := sess.Handle.(*localSession)
	return ls
}

// Session resolves ref (or label) in the local state with the requester's
// checks (state.ResolveRef, as history and show read).
func (l *Local) Session(_ context.Context, ref, label string) (*backend.Session, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	t, err := s.ResolveRef(state.Ref{Arg: ref, Label: label, Agent: l.Agent}, policy.OpHistory)
	if err != nil {
		if code := apperr.CodeOf(err); label == "" && (code == apperr.CodeNotFound || code == apperr.CodeForbidden && s.Req.Restrict) {
			// A sessionId no entry has (a sandboxed requester is told "not
			// visible"): its transcript may be an orphan.
			o, oerr := transcripts.FindOrphan(s, strings.TrimSpace(ref))
			if oerr != nil {
				return nil, oerr
			}
			if o != nil {
				return orphanSession(s, o), nil
			}
		}
		return nil, err
	}
	return &backend.Session{Key: t.DisplayKey, SessionID: t.Entry.SessionID, Agent: t.Agent, Label: t.Entry.Label,
		Handle: &localSession{t: t, s: s}}, nil
}

// orphanSession is an orphan transcript as a session: the key it belonged
// to when that is known, else none.
func orphanSession(s *state.State, o *transcripts.OrphanAt) *backend.Session {
	sess := &backend.Session{SessionID: o.SessionID, Agent: o.Agent, Handle: &localSession{s: s, orphan: o, tp: o.Path()}}
	if o.Key != "" {
		sess.Key = s.DisplayKey(o.Key)
	}
	return sess
}

// History reads a page of the session's transcript: a JSONL file
// (OpenClaw up to 2026.7) or the SQLite store's events (2026.8+).
func (l *Local) History(_ context.Context, sess *backend.Session, q backend.HistoryQuery) (*backend.HistoryPage, error) {
	ls := handle(sess)
	if ls.orphan != nil {
		return l.orphanHistory(ls, q)
	}
	s, t := ls.s, ls.t
	limit := q.Limit
	if q.All {
		limit = 0
	}
	opts := transcript.Options{Limit: limit, IncludeTools: q.IncludeTools, Warn: l.Warn, More: !q.Follow && !q.All}
	era := transcript.EraFile
	if state.IsSQLite(t.Store) {
		era = transcript.EraSQLite
	}
	if !q.Before.None() {
		c, err := localCursor(q.Before)
		if err != nil {
			return nil, err
		}
		if err := checkCursor(c, era, t); err != nil {
			return nil, err
		}
		opts.Before, opts.BeforeCheck = c.Pos, c.Check
	}
	r := &transcript.Result{Messages: []json.RawMessage{}}
	p := &backend.HistoryPage{}
	var plan *aroundPlan
	var err error
	name := "the transcript of " + t.DisplayKey
	if era == transcript.EraSQLite {
		// OpenClaw 2026.8+: the transcript is the SQLite store's events.
		if !q.Around.None() {
			if plan, err = seekAround(l.sqliteStream(s, t.Agent, t.Entry.SessionID), t.Entry.SessionID, q.Around, q.Limit, q.IncludeTools, name); err != nil {
				return nil, err
			}
			plan.apply(&opts)
		}
		if r, err = s.SQLiteMessages(t.Agent, t.Entry, opts); err != nil {
			return nil, cursorErr(err, t)
		}
		ls.off = r.Size
	} else {
		tp, err := s.Transcript(t.Agent, t.Store, t.Entry)
		if err != nil {
			return nil, err
		}
		ls.tp = tp.Path
		if tp.Fallback != "" && l.Debug != nil {
			l.Debug("transcript fallback", "reason", tp.Fallback, "path", tp.Path)
		}
		switch {
		case tp.Exists:
			if !q.Around.None() {
				if plan, err = seekAround(fileStream(tp.Path), t.Entry.SessionID, q.Around, q.Limit, q.IncludeTools, name); err != nil {
					return nil, err
				}
				plan.apply(&opts)
			}
			if r, err = transcript.ReadMessages(tp.Path, opts); err != nil {
				if errors.Is(err, transcript.ErrCursorMismatch) {
					return nil, cursorErr(err, t)
				}
				return nil, readErr(tp.Path, err)
			}
			ls.off = r.Size
		case !q.Before.None():
			return nil, cursorErr(transcript.ErrCursorMismatch, t)
		case !q.Around.None():
			return nil, apperr.NotFoundf("--around %s: no such message in %s (it has no transcript yet)", q.Around, name)
		case !q.Follow:
			p.Note = "session " + t.DisplayKey + " has no transcript yet (" + tp.Path + ")"
		}
	}
	p.Messages, p.More = r.Messages, r.More
	if p.Messages == nil {
		p.Messages = []json.RawMessage{}
	}
	positions, checks, sid := r.Positions, r.Checks, t.Entry.SessionID
	p.SetCursors(func(i int) string {
		if i < 0 || i >= len(positions) {
			return ""
		}
		return transcript.Cursor{Era: era, SessionID: sid, Pos: positions[i], Check: checks[i]}.String()
	})
	if plan != nil {
		if err := plan.finish(p, positions, era, sid, name); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// orphanHistory reads a page of an orphan transcript (its file, like a
// session's).
func (l *Local) orphanHistory(ls *localSession, q backend.HistoryQuery) (*backend.HistoryPage, error) {
	limit := q.Limit
	if q.All {
		limit = 0
	}
	opts := transcript.Options{Limit: limit, IncludeTools: q.IncludeTools, Warn: l.Warn, More: !q.Follow && !q.All}
	sid, name := ls.orphan.SessionID, "orphan transcript "+ls.orphan.SessionID
	era := transcript.EraFile
	if ls.orphan.File == nil {
		era = transcript.EraSQLite
	}
	if !q.Before.None() {
		c, err := localCursor(q.Before)
		if err != nil {
			return nil, err
		}
		if c.Era != era || c.SessionID != sid {
			return nil, apperr.Usagef("--before: the cursor belongs to the transcript of session %q, not to the %s; a cursor only pages the transcript it came from", c.SessionID, name)
		}
		opts.Before, opts.BeforeCheck = c.Pos, c.Check
	}
	var plan *aroundPlan
	if !q.Around.None() {
		stream := fileStream(ls.tp)
		if era == transcript.EraSQLite {
			stream = l.sqliteStream(ls.s, ls.orphan.Agent, sid)
		}
		var err error
		if plan, err = seekAround(stream, sid, q.Around, q.Limit, q.IncludeTools, "the "+name); err != nil {
			return nil, err
		}
		plan.apply(&opts)
	}
	var r *transcript.Result
	var err error
	if era == transcript.EraSQLite {
		if db := ls.s.SQLiteDB(ls.orphan.Agent); db == nil {
			err = apperr.Statef("no SQLite store open for agent %s", ls.orphan.Agent)
		} else {
			r, err = db.Messages(sid, opts)
		}
	} else if r, err = transcript.ReadMessages(ls.tp, opts); err != nil && !errors.Is(err, transcript.ErrCursorMismatch) {
		return nil, readErr(ls.tp, err)
	}
	if err != nil {
		if errors.Is(err, transcript.ErrCursorMismatch) {
			return nil, apperr.Usagef("--before: the cursor does not match the %s any more (it was replaced or rewritten); start again from the newest page", name)
		}
		return nil, err
	}
	ls.off = r.Size
	p := &backend.HistoryPage{Messages: r.Messages, More: r.More}
	if p.Messages == nil {
		p.Messages = []json.RawMessage{}
	}
	positions, checks := r.Positions, r.Checks
	p.SetCursors(func(i int) string {
		if i < 0 || i >= len(positions) {
			return ""
		}
		return transcript.Cursor{Era: era, SessionID: sid, Pos: positions[i], Check: checks[i]}.String()
	})
	if plan != nil {
		if err := plan.finish(p, positions, era, sid, "the "+name); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// fileStream streams a transcript file's lines for a seek (its skipped
// lines are said by the page's own read).
func fileStream(path string) func(func(transcript.Line) error) error {
	return func(fn func(transcript.Line) error) error {
		err := transcript.Stream(path, 0, transcript.Options{}, fn)
		if err != nil && !errors.Is(err, errAroundStop) {
			return readErr(path, err)
		}
		return err
	}
}

// sqliteStream streams a 2026.8+ transcript's events for a seek.
func (l *Local) sqliteStream(s *state.State, agent, sid string) func(func(transcript.Line) error) error {
	return func(fn func(transcript.Line) error) error {
		db := s.SQLiteDB(agent)
		if db == nil {
			return apperr.Statef("no SQLite store open for agent %s", agent)
		}
		err := db.Stream(sid, 0, transcript.Options{}, fn)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
}

// localCursor is c as a local reader made it (Local.Cursor checked it).
func localCursor(c backend.Cursor) (transcript.Cursor, error) {
	lc := c.Local()
	if lc == nil {
		return transcript.Cursor{}, apperr.Usagef("--before: the cursor was made over a gateway; pass it with the same --gateway or --context")
	}
	return *lc, nil
}

// checkCursor refuses a cursor made for another transcript.
func checkCursor(c transcript.Cursor, era transcript.Era, t *state.Target) error {
	if c.Era != era {
		return apperr.Usagef("--before: the cursor was made for %s, but %s is %s", c.Era, t.DisplayKey, era)
	}
	if c.SessionID != t.Entry.SessionID {
		return apperr.Usagef("--before: the cursor belongs to the transcript of session %q, not to %s (session %s); a cursor only pages the transcript it came from",
			c.SessionID, t.DisplayKey, t.Entry.SessionID)
	}
	return nil
}

// cursorErr maps a read's cursor mismatch to a usage error.
func cursorErr(err error, t *state.Target) error {
	if errors.Is(err, transcript.ErrCursorMismatch) {
		return apperr.Usagef("--before: the cursor does not match the transcript of %s any more (it was replaced or rewritten); start again from the newest page", t.DisplayKey)
	}
	return err
}

func readErr(path string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return apperr.Statef("cannot read transcript %s: permission denied", path)
	}
	return apperr.Statef("cannot read transcript %s: %v", path, err)
}
