package gatewayhost

import (
	"context"
	"slices"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/lifecycle"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/tidwall/gjson"
)

// Through a gateway the lifecycle operations need nothing of this
// machine's state dir: each session is named over the gateway as a patch
// names it (sessions.list: a key, a sessionId or a unique prefix; the
// checks of a send against the host's config with --as), the main session
// is refused as OpenClaw refuses it, and the write is the gateway's own
// RPC (sessionwrite.DeleteThrough, ResetThrough, ArchiveThrough), which
// waits for or aborts a session's runs itself. A dry run connects (the
// version decides what reset and archive report) and calls nothing that
// writes.

// lifecycleConn connects once (the handshake and the naming bounded by
// CallTimeout) and gives the requester on the gateway (nil: the
// operator).
func (g *Gateway) lifecycleConn(ctx context.Context) (*gateway.Client, *state.Access, error) {
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	return g.requester(ctx, "", "", policy.OpSend)
}

// lifecycleSession is the session ref names over the gateway, with the
// lifecycleOne dials the gateway for a lifecycle call on one session and
// names key over it (reset, archive).
func (g *Gateway) lifecycleOne(ctx context.Context, key string) (*gateway.Client, sessionwrite.GatewaySession, error) {
	c, acc, err := g.lifecycleConn(ctx)
	if err != nil {
		return nil, sessionwrite.GatewaySession{}, err
	}
	gs, err := g.lifecycleSession(ctx, c, acc, key)
	return c, gs, err
}

// checks of a send (as a patch finds it, writeSession).
func (g *Gateway) lifecycleSession(ctx context.Context, c *gateway.Client, acc *state.Access, ref string) (sessionwrite.GatewaySession, error) {
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	row, err := writeRow(ctx, c, acc, strings.ToLower(strings.TrimSpace(g.Agent)), ref)
	if err != nil {
		return sessionwrite.GatewaySession{}, err
	}
	r, err := RowOf(row.Raw)
	if err != nil {
		return sessionwrite.GatewaySession{}, err
	}
	if err := CheckSession(ctx, c, acc, ref, "", r, policy.OpSend); err != nil {
		return sessionwrite.GatewaySession{}, err
	}
	return gatewaySession(row, r), nil
}

// gatewaySession is a sessions.list row as a lifecycle write names it.
func gatewaySession(row gateway.SessionRow, r state.Row) sessionwrite.GatewaySession {
	return sessionwrite.GatewaySession{Key: r.Key, Agent: r.AgentID, SessionID: r.SessionID, Kind: r.Kind,
		UpdatedAt: row.UpdatedAt, ArchivedAt: gjson.GetBytes(row.Raw, "archivedAt").Int()}
}

// isMain: an agent's main session, or the global one, which OpenClaw
// never deletes nor archives.
func isMain(gs sessionwrite.GatewaySession) bool {
	return gs.Key == keys.MainOf(gs.Agent) || gs.Key == keys.Global
}

// Delete names q.Keys over the gateway and deletes them through
// sessions.delete; the main session is refused before anything is
// written.
func (g *Gateway) Delete(ctx context.Context, q backend.DeleteAsk) (*lifecycle.Result, error) {
	c, acc, err := g.lifecycleConn(ctx)
	if err != nil {
		return nil, err
	}
	var ss []sessionwrite.GatewaySession
	seen := map[string]bool{}
	for _, ref := range q.Keys {
		gs, err := g.lifecycleSession(ctx, c, acc, ref)
		if err != nil {
			return nil, err
		}
		if isMain(gs) {
			return nil, apperr.Errorf("%s", lifecycle.MsgMain(gs.Key)).With("sessionKey", gs.Key)
		}
		if !seen[gs.Key] {
			seen[gs.Key] = true
			ss = append(ss, gs)
		}
	}
	out, err := sessionwrite.DeleteThrough(ctx, sessionwrite.Bounded(c), ss, sessionwrite.Lifecycle{DryRun: q.DryRun, KeepTranscript: q.KeepTranscript})
	if err != nil {
		return nil, err
	}
	return lifecycle.ResultOf("delete", q.DryRun, out), nil
}

// Reset names q.Key over the gateway and resets it through
// sessions.reset (1.30: a new sessionId; 2026.9.x keeps it).
func (g *Gateway) Reset(ctx context.Context, q backend.SessionAsk) (*lifecycle.Result, error) {
	c, gs, err := g.lifecycleOne(ctx, q.Key)
	if err != nil {
		return nil, err
	}
	it, err := sessionwrite.ResetThrough(ctx, sessionwrite.Bounded(c), g.Endpoint.String(), gs, sessionwrite.Lifecycle{DryRun: q.DryRun}, g.now())
	if err != nil {
		return nil, err
	}
	return &lifecycle.Result{Action: "reset", DryRun: q.DryRun, Count: 1, Sessions: []lifecycle.Item{*it}}, nil
}

// Archive names q.Key over the gateway and archives it: 2026.9.x's
// sessions.patch {archived: true}; on 1.30, which has no archived state,
// sessions.delete. Every agent's main session is refused first.
func (g *Gateway) Archive(ctx context.Context, q backend.SessionAsk) (*lifecycle.Result, error) {
	c, gs, err := g.lifecycleOne(ctx, q.Key)
	if err != nil {
		return nil, err
	}
	if isMain(gs) {
		return nil, apperr.Errorf("%s", lifecycle.MsgArchiveMain).With("sessionKey", gs.Key)
	}
	out, err := sessionwrite.ArchiveThrough(ctx, sessionwrite.Bounded(c), gs, sessionwrite.Lifecycle{DryRun: q.DryRun}, g.now())
	if err != nil {
		return nil, err
	}
	return lifecycle.ResultOf("archive", q.DryRun, out), nil
}

// Prune deletes, through sessions.delete, the sessions the gateway lists
// for the host's agent (--agent, else the gateway's default agent) or
// every agent, last updated more than q.OlderThan ago, of q.Kinds; never
// a main session (skipped, with the reason). For the gateway's operator:
// with --as it is refused.
func (g *Gateway) Prune(ctx context.Context, q backend.PruneAsk) (*lifecycle.Result, error) {
	c, acc, err := g.lifecycleConn(ctx)
	if err != nil {
		return nil, err
	}
	if acc != nil {
		return nil, apperr.Forbiddenf("%s", backend.MsgPruneOperator)
	}
	lctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	agent := config.NormalizeAgentID(strings.TrimSpace(g.Agent))
	if !q.AllAgents && agent == "" {
		list, err := g.Agents(lctx)
		if err != nil {
			return nil, err
		}
		agent = "main"
		if i := slices.IndexFunc(list, func(a AgentInfo) bool { return a.Default }); i >= 0 {
			agent = list[i].ID
		}
	}
	p := gateway.ListParams{}
	if !q.AllAgents {
		p.AgentID = agent
	}
	page, err := c.ListAllSessions(lctx, p, 0)
	if err != nil {
		return nil, err
	}
	var cands []lifecycle.Candidate
	by := map[string]sessionwrite.GatewaySession{}
	for _, row := range page.Sessions {
		r, err := RowOf(row.Raw)
		if err != nil || r.Key == "" || keys.IsReserved(r.Key) || (!q.AllAgents && r.AgentID != agent) {
			continue
		}
		gs := gatewaySession(row, r)
		cands = append(cands, lifecycle.Candidate{Agent: gs.Agent, Key: gs.Key, Kind: gs.Kind, UpdatedAt: gs.UpdatedAt, Main: isMain(gs)})
		by[gs.Key] = gs
	}
	chosen, mains := lifecycle.Select(cands, g.now().Add(-q.OlderThan).UnixMilli(), q.Kinds)
	ss := make([]sessionwrite.GatewaySession, 0, len(chosen))
	for _, ch := range chosen {
		ss = append(ss, by[ch.Key])
	}
	out, err := sessionwrite.DeleteThrough(ctx, sessionwrite.Bounded(c), ss, sessionwrite.Lifecycle{DryRun: q.DryRun})
	if err != nil {
		return nil, err
	}
	skipped := make([]sessionwrite.Skip, 0, len(mains)+len(out.Skipped))
	for _, m := range mains {
		skipped = append(skipped, sessionwrite.Skip{Key: m.Key, Reason: "main session"})
	}
	out.Skipped = append(skipped, out.Skipped...)
	return lifecycle.ResultOf("prune", q.DryRun, out), nil
}
