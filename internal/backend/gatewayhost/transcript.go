package gatewayhost

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/export"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
)

type msgHead struct {
	Role      string  `json:"role"`
	Timestamp float64 `json:"timestamp"`
}

// anchorCursors names the places of a page's messages by their anchors.
func anchorCursors(anchors []backend.Anchor, sessionID string) func(i int) string {
	return func(i int) string {
		if i < 0 || i >= len(anchors) {
			return ""
		}
		return anchors[i].Cursor(sessionID)
	}
}

func anchorsOf(msgs []json.RawMessage) []backend.Anchor {
	out := make([]backend.Anchor, len(msgs))
	for i, m := range msgs {
		var h msgHead
		_ = json.Unmarshal(m, &h)
		a := backend.Anchor{TS: int64(h.Timestamp)}
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
func (g *Gateway) Session(ctx context.Context, ref, label string) (*backend.Session, error) {
	return g.SessionFor(ctx, ref, label, policy.OpHistory)
}

// SessionFor is Session for what the requester means to do with it (op:
// policy.OpSend for send, spawn's requester checks and patch), with that
// op's messages, as state.ResolveRef.
func (g *Gateway) SessionFor(ctx context.Context, ref, label string, op policy.Op) (*backend.Session, error) {
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
	pick := func(r state.Row) (*backend.Session, error) {
		if err := CheckSession(ctx, c, acc, ref, label, r, op); err != nil {
			return nil, err
		}
		s := &backend.Session{Key: r.Key, SessionID: r.SessionID, Agent: r.AgentID, Label: r.Label, Row: r, Raw: raws[r.Key], Children: []string{}}
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
func (g *Gateway) window(ctx context.Context, c *gateway.Client, s *backend.Session, tools bool, limit int) ([]json.RawMessage, string, error) {
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
func (g *Gateway) History(ctx context.Context, s *backend.Session, q backend.HistoryQuery) (*backend.HistoryPage, error) {
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	c, err := g.Client(ctx)
	if err != nil {
		return nil, err
	}
	var before *backend.Anchor
	if !q.Before.None() {
		gc := q.Before.Gateway()
		if gc == nil {
			return nil, apperr.Usagef("invalid --before %q: not a cursor this command printed; pass the nextCursor of an earlier page as printed", q.Before)
		}
		if gc.SessionID != s.SessionID {
			return nil, apperr.Usagef("--before: the cursor belongs to the transcript of session %q, not to %s (session %s); a cursor only pages the transcript it came from", gc.SessionID, s.Key, s.SessionID)
		}
		before = &gc.At
	}
	if !q.Around.None() {
		return g.around(ctx, c, s, q)
	}
	// The whole window: tool results are dropped and the page's place is
	// found here, and whether older messages exist is only known so.
	msgs, sid, err := g.window(ctx, c, s, q.IncludeTools, backend.HistoryWindow)
	if err != nil {
		return nil, err
	}
	if sid != "" {
		s.SessionID = sid
	}
	anchors := anchorsOf(msgs)
	p := &backend.HistoryPage{}
	if len(msgs) > 0 {
		p.Last = anchors[len(anchors)-1].Cursor(s.SessionID)
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
			return nil, apperr.Usagef("--before: that message is no longer within the last %d messages the gateway returns for %s (or the transcript was rewritten); start again from the newest page", backend.HistoryWindow, s.Key)
		}
	}
	limit := q.Limit
	if q.All {
		limit = backend.HistoryWindow
	}
	start := max(0, end-limit)
	p.Messages = msgs[start:end]
	p.SetCursors(anchorCursors(anchors[start:end], s.SessionID))
	p.More = start > 0
	if p.Messages == nil {
		p.Messages = []json.RawMessage{}
	}
	p.WindowFull = len(msgs) >= backend.HistoryWindow
	if p.WindowFull && start == 0 {
		p.Note = "over a gateway, history reaches the last 1000 messages (chat.history's maximum); older ones need sessions on the gateway's host"
	}
	return p, nil
}

// around reads the page of q.Limit messages around the message q.Around
// names, found within the window chat.history returns: a message beyond
// it is out of reach there (exit 4, said so).
func (g *Gateway) around(ctx context.Context, c *gateway.Client, s *backend.Session, q backend.HistoryQuery) (*backend.HistoryPage, error) {
	a := q.Around
	if a.Bound() != nil && a.Bound().Kind() == "cursor" {
		return nil, apperr.Usagef("--around: the cursor was made on a host's own files; pass it there, without --gateway or --context")
	}
	if a.Gateway() != nil && a.Gateway().SessionID != s.SessionID {
		return nil, apperr.Usagef("--around: the cursor belongs to the transcript of session %q, not to %s (session %s); a cursor only names a message of the transcript it came from", a.Gateway().SessionID, s.Key, s.SessionID)
	}
	all, sid, err := g.window(ctx, c, s, true, backend.HistoryWindow)
	if err != nil {
		return nil, err
	}
	if sid != "" {
		s.SessionID = sid
	}
	full := len(all) >= backend.HistoryWindow
	if full && a.Bound() != nil && a.Bound().Kind() == "seq" {
		return nil, apperr.Usagef("--around %s: a sequence number counts from the transcript's first message, and over a gateway only the last %d messages of %s are in reach; give the message's id or time", a, backend.HistoryWindow, s.Key)
	}
	// The page's messages (tool results left out unless asked), and which
	// of them the target is.
	var msgs []json.RawMessage
	t, toolTarget := -1, false
	var sk *export.Seeker
	if a.Bound() != nil {
		sk = export.NewSeeker(a.Bound())
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
	if a.Gateway() != nil {
		for i, an := range anchors {
			if an == a.Gateway().At {
				t = i
				break
			}
		}
	}
	switch {
	case toolTarget:
		return nil, apperr.Usagef("--around %s names a tool result, which this page leaves out; add --include-tools", a)
	case t < 0 && full:
		return nil, apperr.NotFoundf("--around %s: no such message within the last %d messages the gateway returns for %s (chat.history's window); older ones need sessions on the gateway's host", a, backend.HistoryWindow, s.Key)
	case t < 0:
		return nil, apperr.NotFoundf("--around %s: no such message in the transcript of %s", a, s.Key)
	}
	start, end := backend.AroundWindow(len(msgs), t, q.Limit)
	p := &backend.HistoryPage{Messages: msgs[start:end], More: start > 0, Target: t - start,
		WindowFull: full}
	if len(anchors) > 0 {
		p.Last = anchors[len(anchors)-1].Cursor(s.SessionID)
	}
	newer := anchors[end:min(len(anchors), end+q.Limit+1)]
	p.SetCursors(anchorCursors(anchors[start:end], s.SessionID))
	p.SetNewer(len(newer), func(k int) string { return newer[k].Cursor(s.SessionID) })
	if full && start == 0 {
		p.Note = "over a gateway, history reaches the last 1000 messages (chat.history's maximum); older ones need sessions on the gateway's host"
	}
	return p, nil
}

// Follow re-reads the newest messages when the gateway's chat events for the
// key say something happened, and every q.Poll besides (a user message or
// a tool result has no chat event), printing those after the last one seen.
func (g *Gateway) Follow(ctx context.Context, s *backend.Session, q backend.FollowQuery, emit func([]json.RawMessage) (int, error)) error {
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
	var last *backend.Anchor
	if q.Last != "" {
		if _, a, err := backend.ParseGatewayCursor(q.Last); err == nil {
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
		msgs, sid, err := g.window(cctx, c, s, q.IncludeTools, backend.HistoryWindow)
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
