package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/lazyre"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// writeQuery names the session a write changes (writeSession).
type writeQuery struct {
	Ref   string // a key, a sessionId or a unique sessionId prefix
	Label string // or the session with this label (the host's Agent picks the agent)
	// WaitIdle: the write means to wait, first, for an OpenClaw run on the
	// session to end (patch --wait-idle). Only this host's JSON-era files
	// show such a run (its transcript lock): through a gateway, which
	// orders writes with its runs itself, it is refused (exit 2).
	WaitIdle bool
}

// writeSession is the session a write changes, found where it lives with
// the checks of a send (visible to the requester, agent-to-agent
// allowed), and what a write can do on it.
type writeSession struct {
	Key        string // the store key
	DisplayKey string // the key as the requester names it
	Agent      string
	// SessionID is the sessionId the reference named the session by: the
	// write must still find the key on it (a /new may have moved the key
	// on meanwhile). "" when named by key or label, and over a gateway
	// host (whose sessions.patch lists the key again itself).
	SessionID string
	// State is this host's state dir the session is in, where its writes
	// are routed from; nil over a gateway host, which takes every write.
	State *state.State

	waitIdle bool
	l        *Local        // the local host (nil over a gateway)
	t        *state.Target // the local state's session (nil over a gateway)
}

// errWaitIdleOverGateway is the refusal of writeQuery.WaitIdle through a
// gateway.
func errWaitIdleOverGateway() error {
	return apperr.Usagef("--wait-idle applies to a patch of the local state dir; through the gateway, OpenClaw itself orders the patch with its runs")
}

// through refuses what the write cannot do on route r: wait for an
// OpenClaw run (WaitIdle) through a gateway (this host's live gateway of
// a 2026.8+ agent; a gateway host refused it before any lookup).
func (w *writeSession) through(r sessionwrite.Route) error {
	if w.waitIdle && r.ThroughGateway() {
		return errWaitIdleOverGateway()
	}
	return nil
}

// idleQuery is what a write does about an OpenClaw run on its session
// (writeSession.idle).
type idleQuery struct {
	// Wait > 0: wait up to this long for the run to end (exit 5 after);
	// 0: warn that its end-of-turn write may undo the change.
	Wait time.Duration
	// Settle is how long to wait, after the run released the lock, for
	// its end-of-turn store write (0: not waited for).
	Settle time.Duration
	// OnWait is told when the wait starts, with what it waits for.
	OnWait func(msg string)
}

// idlePoll is how often the wait for an idle session re-checks the
// transcript lock and the store.
const idlePoll = 100 * time.Millisecond

// idle looks, before a write on route r, for an OpenClaw
// turn running on the session: a live holder of its transcript lock, which
// only this host's JSON-era files have (a 2026.8+ store refuses a session
// with an active run itself; a gateway orders the write with its runs).
// Without q.Wait it returns the warning that the write may be undone (also
// said through the host's Warn); with it, it waits for the turn to end and
// for OpenClaw's end-of-turn store write (at most q.Settle after the lock
// is released), or fails with exit 5 when the turn is still running after
// q.Wait.
func (w *writeSession) idle(ctx context.Context, r sessionwrite.Route, q idleQuery) ([]string, error) {
	if !r.Direct(era.JSON) || w.t == nil {
		return nil, nil
	}
	s, t := w.State, w.t
	storePath, _ := s.StorePath(t.Agent)
	tp, err := s.Transcript(t.Agent, t.Store, t.Entry)
	if err != nil || tp.Path == "" {
		return nil, nil // no transcript to lock: nothing can be running on it
	}
	h, err := state.TranscriptBusy(tp.Path)
	if err != nil || h == nil {
		return nil, nil
	}
	held := w.l.now().Sub(h.Since).Round(time.Second)
	if q.Wait <= 0 {
		msg := fmt.Sprintf("an OpenClaw run (pid %d) has held the transcript lock of %s for %s: when its turn ends OpenClaw rewrites the entry from its own copy and may undo this change (use --wait-idle to wait for the run to end first)",
			h.PID, t.DisplayKey, held)
		w.l.Warn(msg)
		return []string{msg}, nil
	}
	if q.OnWait != nil {
		q.OnWait(fmt.Sprintf("waiting up to %s for the OpenClaw run on %s (pid %d, transcript lock held for %s) to end…", q.Wait, t.DisplayKey, h.PID, held))
	}
	before := storeStamp(storePath)
	ctx, cancel := context.WithTimeout(ctx, q.Wait)
	defer cancel()
	if last, err := state.WaitTranscriptIdle(ctx, tp.Path, idlePoll); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			pid := h.PID
			if last != nil {
				pid = last.PID
			}
			return nil, apperr.Timeoutf("still busy after %s: an OpenClaw run (pid %d) holds the transcript lock of %s; nothing was changed", q.Wait, pid, t.DisplayKey).With("sessionKey", t.DisplayKey)
		}
		return nil, err
	}
	// The turn's own store write comes right after it releases the lock:
	// wait for the store to change (or q.Settle), so that it lands first.
	timer := time.NewTimer(q.Settle)
	defer timer.Stop()
	for storeStamp(storePath) == before {
		select {
		case <-timer.C:
			return nil, nil
		case <-time.After(idlePoll):
		}
	}
	w.l.debug("store written after the run ended", "path", storePath)
	return nil, nil
}

// storeStamp identifies a version of the store file (size, mtime).
func storeStamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano())
}

// route is where agent's session writes go on this host's state dir s,
// and the options they open with: sessionwrite.Choose with this host's
// write options — the agent's own store here, or, for a 2026.8+ agent,
// this host's live gateway (an overlay of Local's: a gateway the
// invocation names is a host of its own, Gateway). Said at debug level
// for the operation what, when it is a gateway or a 2026.8+ agent stays
// local.
func (l *Local) route(s *state.State, agent, what string) (sessionwrite.Route, sessionwrite.Options, error) {
	wo := l.writeOptions(s)
	r, err := sessionwrite.Choose(s, agent, wo)
	if err != nil {
		return r, wo, err
	}
	switch {
	case r.ThroughGateway():
		l.debug(what+": "+r.Why, "gateway", r.Gateway.URL, "auth", r.Gateway.AuthSource)
	case r.Why != "":
		l.debug(what+": "+r.Why+"; writing locally", "agent", agent)
	}
	return r, wo, nil
}

// writeSession resolves the reference in this host's state dir with the
// checks of a send (state.ResolveRef, policy.OpSend).
func (l *Local) writeSession(q writeQuery) (*writeSession, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	t, err := s.ResolveRef(state.Ref{Arg: q.Ref, Label: q.Label, Agent: l.Agent}, policy.OpSend)
	if err != nil {
		return nil, err
	}
	w := &writeSession{Key: t.Key, DisplayKey: t.DisplayKey, Agent: t.Agent, State: s, waitIdle: q.WaitIdle, l: l, t: t}
	if t.ViaID {
		// the key may have moved on to a new session (/new) since we
		// resolved the id
		w.SessionID = t.Entry.SessionID
	}
	return w, nil
}

// writeSession finds the session over the gateway (sessions.list) as a
// local patch finds it, with state.ResolveRef's wording: a key (a bare
// rest is the requester's agent's: --as's, else --agent's, else main's),
// a sessionId, a unique sessionId prefix (8+ hex digits), or the label
// (of --agent, when given); then the checks of a send against that host's
// config (--as). 1.30's sessions.patch would create a key it does not
// have: the session must be listed first. WaitIdle is refused before any
// connection.
func (g *Gateway) writeSession(ctx context.Context, q writeQuery) (*writeSession, error) {
	if q.WaitIdle {
		return nil, errWaitIdleOverGateway()
	}
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	agent := strings.ToLower(strings.TrimSpace(g.Agent))
	c, acc, err := g.requester(ctx, agent, q.Label, policy.OpSend)
	if err != nil {
		return nil, err
	}
	var row gateway.SessionRow
	if q.Label != "" {
		row, err = writeRowByLabel(ctx, c, acc, agent, q.Label)
	} else {
		row, err = writeRow(ctx, c, acc, agent, q.Ref)
	}
	if err != nil {
		return nil, err
	}
	r, err := RowOf(row.Raw)
	if err != nil {
		return nil, err
	}
	if err := CheckSession(ctx, c, acc, q.Ref, q.Label, r, policy.OpSend); err != nil {
		return nil, err
	}
	return &writeSession{Key: r.Key, DisplayKey: r.Key, Agent: r.AgentID}, nil
}

// hexPrefix is what a write takes for a sessionId prefix over a gateway.
var hexPrefix = lazyre.New(`^[0-9a-fA-F-]{8,}$`)

// writeRow is the row ref names over the gateway (of agent, when given;
// no global row): the first row whose key is ref or the requester's
// agent's ref, or whose sessionId is ref, else the one row whose sessionId
// ref prefixes.
func writeRow(ctx context.Context, c *gateway.Client, acc *state.Access, agent, ref string) (gateway.SessionRow, error) {
	ref = strings.TrimSpace(ref)
	page, err := c.ListAllSessions(ctx, gateway.ListParams{AgentID: agent}, 0)
	if err != nil {
		return gateway.SessionRow{}, err
	}
	lower := strings.ToLower(ref)
	alias := ""
	if !strings.HasPrefix(lower, "agent:") {
		a := agent
		if acc != nil { // a bare key is the requester's agent's, as locally
			a = acc.Req.Agent
		}
		if a == "" {
			a = "main"
		}
		alias = "agent:" + a + ":" + lower
	}
	var byPrefix []gateway.SessionRow
	for _, r := range page.Sessions {
		k := strings.ToLower(r.Key)
		switch {
		case k == lower || (alias != "" && k == alias):
			return r, nil
		case r.SessionID != "" && strings.EqualFold(r.SessionID, ref):
			return r, nil
		case hexPrefix.MatchString(ref) && strings.HasPrefix(strings.ToLower(r.SessionID), lower) && reaches(acc, r.Key):
			byPrefix = append(byPrefix, r)
		}
	}
	switch len(byPrefix) {
	case 1:
		return byPrefix[0], nil
	case 0:
		if acc != nil {
			return gateway.SessionRow{}, acc.NotFound(ref)
		}
		return gateway.SessionRow{}, apperr.NotFoundf("No session found: %s", ref)
	}
	keys := make([]string, len(byPrefix))
	for i, r := range byPrefix {
		keys[i] = r.Key
	}
	return gateway.SessionRow{}, apperr.Usagef("session id prefix %s is ambiguous on the gateway: %s", ref, strings.Join(keys, ", "))
}

// reaches reports whether a requester (acc; nil or the operator: always)
// may see the sessions of the agent key names, so a session it may not see
// is never a candidate it is told of.
func reaches(acc *state.Access, key string) bool {
	if acc == nil || acc.Req.Operator() {
		return true
	}
	return acc.CanSeeAgent(keys.AgentOf(key, acc.Default, config.NormalizeAgentID), policy.OpHistory) == ""
}

// writeRowByLabel is the row with label over the gateway (of agent, when
// given): the gateway filters, and the label is checked again here; for a
// requester, only among the sessions it may see.
func writeRowByLabel(ctx context.Context, c *gateway.Client, acc *state.Access, agent, label string) (gateway.SessionRow, error) {
	page, err := c.ListSessions(ctx, gateway.ListParams{Label: label, AgentID: agent})
	if err != nil {
		return gateway.SessionRow{}, err
	}
	var hits []gateway.SessionRow
	var keys []string
	for _, r := range page.Sessions {
		if r.Label == label && reaches(acc, r.Key) {
			hits, keys = append(hits, r), append(keys, r.Key)
		}
	}
	switch len(hits) {
	case 0:
		if acc != nil && !acc.Req.Operator() {
			return gateway.SessionRow{}, acc.NotFoundLabel(label)
		}
		return gateway.SessionRow{}, apperr.NotFoundf("No session found with label: %s", label)
	case 1:
		return hits[0], nil
	}
	return gateway.SessionRow{}, apperr.Usagef("label %q names %d sessions on the gateway (%s); give --agent or the key", label, len(keys), strings.Join(keys, ", "))
}
