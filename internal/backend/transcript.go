package backend

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/export"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
)

// Transcripts reads and follows a session's transcript where it lives:
// Local (the JSONL files or the 2026.8+ SQLite store, a file-watching
// follower) and Gateway (chat.history and its chat events) implement it,
// and history and show read through it whatever the reader is.
type Transcripts interface {
	// Cursor checks a --before cursor once, before any lookup: one this
	// reader cannot page (malformed, or made by the other kind of reader)
	// is refused (exit 2); History takes the Cursor it returns.
	Cursor(before string) (Cursor, error)
	// Session finds the session a reference names (key, sessionId, a
	// unique sessionId prefix, or a label with --agent).
	Session(ctx context.Context, ref, label string) (*Session, error)
	// History reads a page of the transcript: the last q.Limit messages,
	// or the ones before q.Before (a Cursor of this reader's).
	History(ctx context.Context, s *Session, q HistoryQuery) (*HistoryPage, error)
	// Follow calls emit with the messages appended after the page History
	// read (q.Last over a gateway), as they come, until ctx ends or q.Idle
	// passes without one; emit says how many it printed.
	Follow(ctx context.Context, s *Session, q FollowQuery, emit func([]json.RawMessage) (int, error)) error
}

// Session is one session as the transcript readers know it.
type Session struct {
	Key       string // the whole key
	SessionID string
	Agent     string
	Label     string
	Row       state.Row
	// Raw is the row as the gateway gave it (show's "entry").
	Raw json.RawMessage
	// Children are the keys whose spawnedBy is this session, newest first
	// (2026.9 rows only: 1.30's never carry spawnedBy).
	Children []string

	local *localSession // the local reader's session
}

// HistoryQuery is a page request.
type HistoryQuery struct {
	Limit        int
	IncludeTools bool
	Before       Cursor // a NextCursor of an earlier page (Transcripts.Cursor)
	// Follow: the page starts a follow (whether older messages exist need
	// not be known, and a missing transcript is no news).
	Follow bool
	// All: every message the reader reaches, Limit ignored (over a
	// gateway: chat.history's window).
	All bool
	// Around: the page of Limit messages around this message instead
	// (HistoryPage.Target says which it is); not with Before or Follow.
	Around Around
}

// HistoryPage is a page of messages, oldest first, as stored (the command
// sanitises them). CursorBefore(i) names the place before Messages[i].
type HistoryPage struct {
	Messages []json.RawMessage
	More     bool // older messages exist before Messages[0]
	anchors  []anchor
	session  string
	cursorAt func(i int) string // the local reader's cursors
	// Last is where Follow starts (the newest message read).
	Last string
	// Note is said once on stderr (e.g. a gateway that has no cursors).
	Note string
	// WindowFull: the gateway returned as many messages as chat.history
	// ever does (HistoryWindow); older ones, if any, are out of its reach.
	WindowFull bool
	// Target (a page read Around a message) is that message's index in
	// Messages; Newer how many messages after the page the reader knows
	// the places of (CursorAt), at most Limit+1.
	Target  int
	Newer   int
	newerAt func(k int) string
}

// CursorBefore is the --before cursor of the page before Messages[i].
func (p *HistoryPage) CursorBefore(i int) string {
	if p.cursorAt != nil {
		return p.cursorAt(i)
	}
	if i < 0 || i >= len(p.anchors) {
		return ""
	}
	return p.anchors[i].cursor(p.session)
}

// FollowQuery shapes Follow.
type FollowQuery struct {
	IncludeTools bool
	Last         string        // HistoryPage.Last
	Poll         time.Duration // re-read at least this often (events only wake it)
	Idle         time.Duration // stop after this long without a message (0: never)
	// Notice gets the lines said on stderr while following: a reset (a
	// /new: the key's new sessionId), a transcript replaced or truncated,
	// the key gone from its store.
	Notice func(line string)
}

// HistoryWindow is the most chat.history returns (both versions): over a
// gateway, history reaches the last HistoryWindow messages of a session.
const HistoryWindow = 1000

// anchor names one message of a gateway transcript: its timestamp and how
// many messages before it in the window share that timestamp. A place so
// named survives appends (which the gateway's offsets, counted from the
// newest message, do not).
type anchor struct {
	TS  int64 `json:"t"`
	Dup int   `json:"d,omitempty"`
}

const cursorPrefix = "gw1."

// IsGatewayCursor reports whether a --before cursor was made over a gateway.
func IsGatewayCursor(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), cursorPrefix) }

func (a anchor) cursor(sessionID string) string {
	b, _ := json.Marshal(struct {
		S string `json:"s"`
		anchor
	}{sessionID, a})
	return cursorPrefix + base64.RawURLEncoding.EncodeToString(b)
}

func parseGatewayCursor(s string) (string, anchor, error) {
	var c struct {
		S string `json:"s"`
		anchor
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(strings.TrimSpace(s), cursorPrefix))
	if err == nil {
		err = json.Unmarshal(raw, &c)
	}
	if err != nil || c.TS == 0 {
		return "", anchor{}, apperr.Usagef("invalid --before %q: not a cursor this command printed; pass the nextCursor of an earlier page as printed", s)
	}
	return c.S, c.anchor, nil
}

type msgHead struct {
	Role      string  `json:"role"`
	Timestamp float64 `json:"timestamp"`
}

func anchorsOf(msgs []json.RawMessage) []anchor {
	out := make([]anchor, len(msgs))
	for i, m := range msgs {
		var h msgHead
		_ = json.Unmarshal(m, &h)
		a := anchor{TS: int64(h.Timestamp)}
		for j := i - 1; j >= 0 && out[j].TS == a.TS; j-- {
			a.Dup++
		}
		out[i] = a
	}
	return out
}

func isToolResult(m json.RawMessage) bool {
	var h msgHead
	return json.Unmarshal(m, &h) == nil && (h.Role == "toolResult" || h.Role == "tool")
}

// Session resolves ref over sessions.list: a key (whole, or `main` and
// un-prefixed keys as agent "main"'s, or --agent's), a sessionId, a unique
// sessionId prefix, or --label L.
func (g *Gateway) Session(ctx context.Context, ref, label string) (*Session, error) {
	return g.SessionFor(ctx, ref, label, policy.OpHistory)
}

// SessionFor is Session for what the requester means to do with it (op:
// policy.OpSend for send, spawn's requester checks and patch), with that
// op's messages, as state.ResolveRef.
func (g *Gateway) SessionFor(ctx context.Context, ref, label string, op policy.Op) (*Session, error) {
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	c, acc, err := g.requester(ctx, g.Agent, label, op)
	if err != nil {
		return nil, err
	}
	page, err := c.ListAllSessions(ctx, gateway.ListParams{AgentID: g.Agent, IncludeGlobal: true}, 0)
	if err != nil {
		return nil, err
	}
	rows := make([]state.Row, 0, len(page.Sessions))
	raws := map[string]json.RawMessage{}
	for _, s := range page.Sessions {
		if r, err := RowOf(s.Raw); err == nil {
			rows = append(rows, r)
			raws[r.Key] = s.Raw
		}
	}
	// pick checks what the requester (--as) may read, as state.Resolve.
	pick := func(r state.Row) (*Session, error) {
		if err := CheckSession(ctx, c, acc, ref, label, r, op); err != nil {
			return nil, err
		}
		s := &Session{Key: r.Key, SessionID: r.SessionID, Agent: r.AgentID, Label: r.Label, Row: r, Raw: raws[r.Key], Children: []string{}}
		for _, c := range rows { // newest first already; the ones the requester may see, as locally
			if c.SpawnedBy == r.Key && (acc == nil || acc.CanSeeAgent(c.AgentID, op) == "" && acc.SeesSpawnedBy(c.SpawnedBy)) {
				s.Children = append(s.Children, c.Key)
			}
		}
		return s, nil
	}
	where := g.Where()
	if label != "" {
		var hits []state.Row
		for _, r := range rows {
			if r.Label == label && reaches(acc, r.Key) {
				hits = append(hits, r)
			}
		}
		switch len(hits) {
		case 0:
			if acc != nil && !acc.Req.Operator() {
				return nil, acc.NotFoundLabel(label)
			}
			return nil, apperr.NotFoundf("no session labelled %q on gateway %s", label, where)
		case 1:
			return pick(hits[0])
		}
		return nil, apperr.Usagef("label %q is on %d sessions on gateway %s (%s, %s…): give --agent or the key", label, len(hits), where, hits[0].Key, hits[1].Key)
	}
	agent, def := g.Agent, g.Agent
	if agent == "" {
		agent, def = "main", "main"
	}
	if acc != nil { // a bare key is the requester's agent's, as locally
		agent, def = acc.Req.Agent, acc.Default
	}
	id := func(s string) string { return strings.ToLower(s) }
	for _, k := range keys.Candidates(ref, agent, def, id) {
		for _, r := range rows {
			if r.Key == k {
				return pick(r)
			}
		}
	}
	var pre []state.Row
	for _, r := range rows {
		if r.SessionID != "" && strings.EqualFold(r.SessionID, ref) {
			return pick(r)
		}
		if state.IsIDPrefix(ref) && strings.HasPrefix(strings.ToLower(r.SessionID), strings.ToLower(ref)) && reaches(acc, r.Key) {
			pre = append(pre, r)
		}
	}
	switch len(pre) {
	case 0:
		if acc != nil && !acc.Req.Operator() {
			return nil, acc.NotFound(ref)
		}
		return nil, apperr.NotFoundf("session %q not found on gateway %s", ref, where)
	case 1:
		return pick(pre[0])
	}
	return nil, apperr.Usagef("sessionId prefix %q matches %d sessions on gateway %s: give more digits", ref, len(pre), where)
}

// requester connects and resolves the requester on this gateway (--as,
// checked against its config); a label lookup in agent's sessions (agent
// given) is checked first as locally (format §6.3 step 3) — what every
// lookup of a session over the gateway starts with, for op.
func (g *Gateway) requester(ctx context.Context, agent, label string, op policy.Op) (*gateway.Client, *state.Access, error) {
	c, err := g.Client(ctx)
	if err != nil {
		return nil, nil, err
	}
	acc, err := g.Access(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	if acc != nil && label != "" && agent != "" {
		if err := acc.CheckLabelAgent(config.NormalizeAgentID(agent), op); err != nil {
			return nil, nil, err
		}
	}
	return c, acc, nil
}

// window reads the last HistoryWindow messages (tools dropped unless asked).
func (g *Gateway) window(ctx context.Context, c *gateway.Client, s *Session, tools bool, limit int) ([]json.RawMessage, string, error) {
	h, err := c.ChatHistory(ctx, gateway.HistoryParams{SessionKey: s.Key, Limit: limit})
	if err != nil {
		return nil, "", err
	}
	msgs := h.Messages
	if !tools {
		kept := msgs[:0:0]
		for _, m := range msgs {
			if !isToolResult(m) {
				kept = append(kept, m)
			}
		}
		msgs = kept
	}
	return msgs, h.SessionID, nil
}

// History reads the last HistoryWindow messages with one chat.history call
// and pages them here: neither version pages older messages by a stable
// place (2026.1.30 has no paging; 2026.9's offsets count from the newest
// message and shift as OpenClaw appends), so a cursor names a message by
// its timestamp and stays valid while it is within the window.
func (g *Gateway) History(ctx context.Context, s *Session, q HistoryQuery) (*HistoryPage, error) {
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	c, err := g.Client(ctx)
	if err != nil {
		return nil, err
	}
	var before *anchor
	if !q.Before.None() {
		gc := q.Before.gw
		if gc == nil {
			return nil, apperr.Usagef("invalid --before %q: not a cursor this command printed; pass the nextCursor of an earlier page as printed", q.Before)
		}
		if gc.sessionID != s.SessionID {
			return nil, apperr.Usagef("--before: the cursor belongs to the transcript of session %q, not to %s (session %s); a cursor only pages the transcript it came from", gc.sessionID, s.Key, s.SessionID)
		}
		before = &gc.at
	}
	if !q.Around.None() {
		return g.around(ctx, c, s, q)
	}
	// The whole window: tool results are dropped and the page's place is
	// found here, and whether older messages exist is only known so.
	msgs, sid, err := g.window(ctx, c, s, q.IncludeTools, HistoryWindow)
	if err != nil {
		return nil, err
	}
	if sid != "" {
		s.SessionID = sid
	}
	anchors := anchorsOf(msgs)
	p := &HistoryPage{session: s.SessionID}
	if len(msgs) > 0 {
		p.Last = anchors[len(anchors)-1].cursor(s.SessionID)
	}
	end := len(msgs)
	if before != nil {
		end = -1
		for i, a := range anchors {
			if a == *before {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, apperr.Usagef("--before: that message is no longer within the last %d messages the gateway returns for %s (or the transcript was rewritten); start again from the newest page", HistoryWindow, s.Key)
		}
	}
	limit := q.Limit
	if q.All {
		limit = HistoryWindow
	}
	start := max(0, end-limit)
	p.Messages, p.anchors = msgs[start:end], anchors[start:end]
	p.More = start > 0
	if p.Messages == nil {
		p.Messages = []json.RawMessage{}
	}
	p.WindowFull = len(msgs) >= HistoryWindow
	if p.WindowFull && start == 0 {
		p.Note = "over a gateway, history reaches the last 1000 messages (chat.history's maximum); older ones need sessions on the gateway's host"
	}
	return p, nil
}

// around reads the page of q.Limit messages around the message q.Around
// names, found within the window chat.history returns: a message beyond
// it is out of reach there (exit 4, said so).
func (g *Gateway) around(ctx context.Context, c *gateway.Client, s *Session, q HistoryQuery) (*HistoryPage, error) {
	a := q.Around
	if a.bound != nil && a.bound.Kind() == "cursor" {
		return nil, apperr.Usagef("--around: the cursor was made on a host's own files; pass it there, without --gateway or --context")
	}
	if a.gw != nil && a.gw.sessionID != s.SessionID {
		return nil, apperr.Usagef("--around: the cursor belongs to the transcript of session %q, not to %s (session %s); a cursor only names a message of the transcript it came from", a.gw.sessionID, s.Key, s.SessionID)
	}
	all, sid, err := g.window(ctx, c, s, true, HistoryWindow)
	if err != nil {
		return nil, err
	}
	if sid != "" {
		s.SessionID = sid
	}
	full := len(all) >= HistoryWindow
	if full && a.bound != nil && a.bound.Kind() == "seq" {
		return nil, apperr.Usagef("--around %s: a sequence number counts from the transcript's first message, and over a gateway only the last %d messages of %s are in reach; give the message's id or time", a, HistoryWindow, s.Key)
	}
	// The page's messages (tool results left out unless asked), and which
	// of them the target is.
	var msgs []json.RawMessage
	t, toolTarget := -1, false
	var sk *export.Seeker
	if a.bound != nil {
		sk = export.NewSeeker(a.bound)
	}
	for _, m := range all {
		hit := t < 0 && !toolTarget && sk != nil && sk.Next(s.SessionID, &export.SourceLine{Raw: m, Message: m})
		if !q.IncludeTools && isToolResult(m) {
			toolTarget = toolTarget || hit
			continue
		}
		if hit {
			t = len(msgs)
		}
		msgs = append(msgs, m)
	}
	anchors := anchorsOf(msgs)
	if a.gw != nil {
		for i, an := range anchors {
			if an == a.gw.at {
				t = i
				break
			}
		}
	}
	switch {
	case toolTarget:
		return nil, apperr.Usagef("--around %s names a tool result, which this page leaves out; add --include-tools", a)
	case t < 0 && full:
		return nil, apperr.NotFoundf("--around %s: no such message within the last %d messages the gateway returns for %s (chat.history's window); older ones need sessions on the gateway's host", a, HistoryWindow, s.Key)
	case t < 0:
		return nil, apperr.NotFoundf("--around %s: no such message in the transcript of %s", a, s.Key)
	}
	start, end := aroundWindow(len(msgs), t, q.Limit)
	p := &HistoryPage{session: s.SessionID, Messages: msgs[start:end], anchors: anchors[start:end], More: start > 0, Target: t - start,
		WindowFull: full}
	if len(anchors) > 0 {
		p.Last = anchors[len(anchors)-1].cursor(s.SessionID)
	}
	newer := anchors[end:min(len(anchors), end+q.Limit+1)]
	p.Newer = len(newer)
	p.newerAt = func(k int) string { return newer[k].cursor(s.SessionID) }
	if full && start == 0 {
		p.Note = "over a gateway, history reaches the last 1000 messages (chat.history's maximum); older ones need sessions on the gateway's host"
	}
	return p, nil
}

// Follow re-reads the newest messages when the gateway's chat events for the
// key say something happened, and every q.Poll besides (a user message or
// a tool result has no chat event), printing those after the last one seen.
func (g *Gateway) Follow(ctx context.Context, s *Session, q FollowQuery, emit func([]json.RawMessage) (int, error)) error {
	c, err := g.Client(ctx)
	if err != nil {
		return err
	}
	sub := c.ChatEvents(s.Key)
	defer sub.Close()
	events := make(chan error, 1)
	wake := make(chan struct{}, 1)
	go func() {
		for {
			if _, err := sub.Next(ctx); err != nil {
				events <- err
				return
			}
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}()
	var last *anchor
	if q.Last != "" {
		if _, a, err := parseGatewayCursor(q.Last); err == nil {
			last = &a
		}
	}
	poll := q.Poll
	if poll <= 0 {
		poll = time.Second
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	var idle <-chan time.Time
	var idleTimer *time.Timer
	if q.Idle > 0 {
		idleTimer = time.NewTimer(q.Idle)
		defer idleTimer.Stop()
		idle = idleTimer.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-idle:
			return nil
		case err := <-events:
			if ctx.Err() != nil {
				return nil
			}
			return err
		case <-wake:
		case <-tick.C:
		}
		cctx, cancel := context.WithTimeout(ctx, CallTimeout)
		msgs, sid, err := g.window(cctx, c, s, q.IncludeTools, HistoryWindow)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		anchors := anchorsOf(msgs)
		from := 0
		if sid != "" && s.SessionID != "" && sid != s.SessionID {
			s.SessionID = sid
			if q.Notice != nil {
				q.Notice("sessions: " + s.Key + " was reset: now session " + sid)
			}
		} else if last != nil {
			from = len(msgs) // not found: nothing new we can place
			for i := len(anchors) - 1; i >= 0; i-- {
				if anchors[i] == *last {
					from = i + 1
					break
				}
			}
		}
		if from < len(msgs) {
			if _, err := emit(msgs[from:]); err != nil {
				return err
			}
			a := anchors[len(anchors)-1]
			last = &a
			if idleTimer != nil {
				idleTimer.Reset(q.Idle)
			}
		}
	}
}
