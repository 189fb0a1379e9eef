package ops

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/historydoc"
	"github.com/openclaw/sessions/internal/sanitize"
)

// HistoryMaxLimit is the most messages one page holds (chat.history's
// hard maximum, kept locally too).
const HistoryMaxLimit = backend.HistoryWindow

// Session is one session whose transcript an invocation reads, page by
// page (History) and live (Follow), wherever it lives: this host's state
// dir or one gateway. Close it.
type Session struct {
	Key       string // the whole key
	SessionID string
	Agent     string
	Label     string
	// Orphan: the sessionId named an orphan transcript (no entry points
	// to it; Key is the key it belonged to when that is known, else "").
	Orphan bool

	tr      backend.Transcripts
	readers []backend.Reader
	b       *backend.Session
	// last is where Follow starts over a gateway: the newest message the
	// newest page read (read: such a page was read).
	last string
	read bool
}

// Close releases what the session holds open (a gateway connection).
func (s *Session) Close() error {
	closeAll(s.readers)
	s.readers = nil
	return nil
}

// transcriptsOf is what reads r's transcripts: every reader scope() gives
// does.
func transcriptsOf(r backend.Reader) (backend.Transcripts, error) {
	tr, ok := r.(backend.Transcripts)
	if !ok {
		return nil, apperr.Statef("%s cannot read transcripts", r.Where())
	}
	return tr, nil
}

// Session finds the session ref (a key, a sessionId, a unique sessionId
// prefix) or label names, with the requester's checks, where this
// invocation works: the state dir or one gateway (several are a usage
// error: a transcript is read on one host).
func (o *Ops) Session(ctx context.Context, ref, label string) (*Session, error) {
	v, err := o.session(ctx, ref, label)
	return deliver(o, v, err)
}

// session is Session before the agent boundary.
func (o *Ops) session(ctx context.Context, ref, label string) (*Session, error) {
	s, err := o.openReaders()
	if err != nil {
		return nil, err
	}
	if err := s.lookup(ctx, ref, label); err != nil {
		return nil, err
	}
	return s, nil
}

// openReaders opens, once for the request, the readers of the one host a
// transcript is read on; a fleet is refused.
func (o *Ops) openReaders() (*Session, error) {
	readers, fleet, err := o.where.Readers()
	if err != nil {
		return nil, err
	}
	s := &Session{readers: readers}
	if fleet {
		s.Close()
		return nil, apperr.Usagef("history reads one session: name one --context, not several or all")
	}
	if s.tr, err = transcriptsOf(readers[0]); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// lookup finds the session ref (or label) names on s's host; on an error
// s is closed.
func (s *Session) lookup(ctx context.Context, ref, label string) error {
	var err error
	if s.b, err = s.tr.Session(ctx, ref, label); err != nil {
		s.Close()
		return err
	}
	s.Key, s.SessionID, s.Agent, s.Label = s.b.Key, s.b.SessionID, s.b.Agent, s.b.Label
	s.Orphan = s.b.Orphan() != nil
	return nil
}

// CheckCursor checks a --before cursor's form (exit 2 when it is none),
// for a front-end that refuses one before it resolves anything; a page
// request checks its cursor itself, once (OpenHistory, History).
func CheckCursor(before string) error {
	if backend.IsGatewayCursor(before) {
		return nil
	}
	_, err := backend.ParseCursor(before)
	return err
}

// CheckAround checks an --around value's form (exit 2 when it names
// nothing a page can be read around), for a front-end that refuses one
// before it resolves anything; a page request checks it itself.
func CheckAround(around string) error {
	if strings.TrimSpace(around) == "" {
		return apperr.Usagef("--around needs a message: its id (as search gives it), its sequence number, a time or a cursor")
	}
	_, err := backend.ParseAround(around, time.Now())
	return err
}

// OpenHistory reads one page of the session ref (or label) names: the
// readers of the host opened once, the cursor checked by that host before
// any lookup (its form, and that it was made where this invocation
// works), then the session looked up and its page read — the one call
// every front-end makes. The session stays open for Follow and for what
// the caller checks of it; close it. On an error nothing is left open.
func (o *Ops) OpenHistory(ctx context.Context, ref, label string, q HistoryQuery) (*Session, *HistoryResult, error) {
	if err := q.checkAround(); err != nil {
		_, err = deliver(o, struct{}{}, err)
		return nil, nil, err
	}
	sess, before, err := o.openHistory(ctx, ref, label, q.Before)
	if err != nil {
		_, err = deliver(o, struct{}{}, err)
		return nil, nil, err
	}
	res, err := o.history(ctx, sess, q, before)
	if err != nil {
		sess.Close()
		_, err = deliver(o, struct{}{}, err)
		return nil, nil, err
	}
	shown, err := deliver(o, sess, nil)
	if err != nil {
		sess.Close()
		return nil, nil, err
	}
	page, err := deliver(o, res, nil)
	if err != nil {
		sess.Close()
		return nil, nil, err
	}
	return shown, page, nil
}

// openHistory opens the readers, checks the cursor with them and looks
// the session up.
func (o *Ops) openHistory(ctx context.Context, ref, label, before string) (*Session, backend.Cursor, error) {
	sess, err := o.openReaders()
	if err != nil {
		return nil, backend.Cursor{}, err
	}
	c, err := sess.tr.Cursor(before)
	if err != nil {
		sess.Close()
		return nil, backend.Cursor{}, err
	}
	if err := sess.lookup(ctx, ref, label); err != nil {
		return nil, backend.Cursor{}, err
	}
	return sess, c, nil
}

// HistoryQuery is a page request.
type HistoryQuery struct {
	Limit        int  // the last Limit messages (before Before), 1-HistoryMaxLimit
	IncludeTools bool // keep tool results
	// Raw: the messages exactly as stored; otherwise prepared for an
	// agent's context (sanitize) and cut to sanitize.DefaultCapBytes.
	Raw bool
	// Before is a NextCursor of an earlier page: the page before it.
	Before string
	// Follow: the page starts a Follow (it has no NextCursor, and a
	// missing transcript is no news).
	Follow bool
	// Around: the page of Limit messages around this message instead of
	// the newest — its id (a search hit's id), its sequence number, a time
	// (the first message from then on), or a history cursor — with it in
	// the middle where the transcript allows (HistoryResult.AroundIndex).
	// Not with Before or Follow.
	Around string
}

// checkAround refuses Around with Before or Follow, or empty when set.
func (q HistoryQuery) checkAround() error {
	if q.Around == "" {
		return nil
	}
	switch {
	case q.Before != "":
		return apperr.Usagef("--around cannot be used with --before (each names the page to read)")
	case q.Follow:
		return apperr.Usagef("--around cannot be used with --follow (a page around a message does not grow)")
	}
	return CheckAround(q.Around)
}

// HistoryResult is a page of a transcript (`sessions history --json`),
// oldest message first (internal/historydoc).
type HistoryResult = historydoc.Page

// History reads a page of sess's transcript: the last q.Limit messages,
// or those before q.Before, prepared unless q.Raw, with the cursor of the
// page before.
func (o *Ops) History(ctx context.Context, sess *Session, q HistoryQuery) (*HistoryResult, error) {
	before, err := sess.tr.Cursor(q.Before)
	if err != nil {
		return deliver(o, (*HistoryResult)(nil), err)
	}
	v, err := o.history(ctx, sess, q, before)
	return deliver(o, v, err)
}

// history is History before the agent boundary, its cursor checked
// (before).
func (o *Ops) history(ctx context.Context, sess *Session, q HistoryQuery, before backend.Cursor) (*HistoryResult, error) {
	if sess.Orphan && q.Follow {
		return nil, apperr.Usagef("--follow: %s is an orphan transcript (no session entry points to it): nothing appends to it any more", sess.SessionID)
	}
	around, err := backend.ParseAround(q.Around, o.Now())
	if err != nil {
		return nil, err
	}
	page, err := sess.tr.History(ctx, sess.b, backend.HistoryQuery{Limit: q.Limit, IncludeTools: q.IncludeTools, Before: before, Follow: q.Follow, Around: around})
	if err != nil {
		return nil, err
	}
	sess.SessionID = sess.b.SessionID
	if q.Before == "" {
		sess.last, sess.read = page.Last, true
	}
	res := &HistoryResult{SessionKey: sess.Key, SessionID: sess.SessionID, Messages: []json.RawMessage{},
		WindowFull: page.WindowFull && !page.More, Read: len(page.Messages), Note: page.Note, Orphan: sess.Orphan}
	if sess.Orphan && q.Before == "" {
		res.Note = "history: " + sess.SessionID + " is an orphan transcript: no session entry points to it"
		if sess.Key != "" {
			res.Note += " (it was a transcript of " + sess.Key + ")"
		}
	}
	stored := page.Messages
	if o.masking() {
		// Masked before the caps, as sessions_history does, on a copy.
		stored = append([]json.RawMessage(nil), stored...)
		res.Redacted = o.redactMessages(stored)
	}
	p := sanitize.Shape(stored, q.Raw, o.masking())
	end := len(stored) // page.Messages[end-1] is the newest message returned
	if !around.None() {
		p, end = sanitize.ShapeAround(stored, page.Target, q.Raw, o.masking(), p)
	}
	first := p.First // page.Messages[first] is the oldest message returned
	res.Messages, res.Dropped, res.Bytes, res.Truncated = p.Messages, p.Dropped, p.Bytes, p.Truncated
	if !q.Raw && o.masking() {
		dropped, cut, redacted := p.DroppedMessages, p.ContentTruncated, res.Redacted
		res.DroppedMessages, res.ContentTruncated, res.ContentRedacted = &dropped, &cut, &redacted
	}
	if len(res.Messages) > 0 && (page.More || first > 0) && !q.Follow {
		if c := page.CursorBefore(first); c != "" {
			res.HasMore, res.NextCursor = true, c
		}
	}
	if !around.None() {
		at := page.Target - first
		res.AroundIndex = &at
		// The next newer page is the Limit messages before the one Limit
		// after this page's last: the cursor that names it.
		res.HasNewer = end < len(stored) || page.Newer > 0
		if res.HasNewer {
			res.PrevCursor = page.CursorAt(end + q.Limit)
		}
	}
	return res, nil
}

// FollowQuery shapes Follow.
type FollowQuery struct {
	IncludeTools bool
	Raw          bool          // the messages as stored (else prepared one by one)
	Poll         time.Duration // re-check at least this often (0: a second)
	Idle         time.Duration // stop after this long without a message (0: never)
	// Notice gets the lines to say while following: a reset (the key's
	// new sessionId), a transcript replaced or truncated, the key gone.
	Notice func(line string)
}

// Follow calls emit with each batch of messages appended to sess's transcript after
// the newest page History read, as they come, prepared like a page's
// (each on its own: they were not part of the page's cap) unless q.Raw;
// it follows the key across a reset and ends when ctx ends (nil) or q.Idle
// passes without a message. Without a page read first it starts now.
func (o *Ops) Follow(ctx context.Context, sess *Session, q FollowQuery, emit func([]json.RawMessage) error) error {
	return o.boundary().Err(o.follow(ctx, sess, q, emit))
}

// follow is Follow before the agent boundary masks its error.
func (o *Ops) follow(ctx context.Context, sess *Session, q FollowQuery, emit func([]json.RawMessage) error) error {
	if !sess.read {
		if _, err := o.history(ctx, sess, HistoryQuery{Limit: 1, IncludeTools: q.IncludeTools, Raw: true, Follow: true}, backend.Cursor{}); err != nil {
			return err
		}
	}
	poll := q.Poll
	if poll <= 0 {
		poll = time.Second
	}
	return sess.tr.Follow(ctx, sess.b, backend.FollowQuery{
		IncludeTools: q.IncludeTools, Last: sess.last, Poll: poll, Idle: q.Idle, Notice: q.Notice,
	}, func(msgs []json.RawMessage) (int, error) {
		if o.masking() {
			msgs = append([]json.RawMessage(nil), msgs...)
			o.redactMessages(msgs)
		}
		out := sanitize.Appended(msgs, q.Raw)
		if len(out) == 0 {
			return 0, nil
		}
		out, err := deliver(o, out, nil)
		if err != nil {
			return 0, err
		}
		return len(out), emit(out)
	})
}
