package local

import (
	"context"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
)

// PlanSend makes a send ready on this host's state dir: the session
// resolved and visible (state.ResolveRef), its writes routed per agent
// (the agent's files or database, or the live gateway of a 2026.8+
// agent), what the runner could not do refused (launch.Preflight; through
// a gateway, or beside a running OpenClaw on SQLite, launch.CheckTarget),
// the send policy (exit 3), the engine chosen and able to run the turn.
func (l *Local) PlanSend(_ context.Context, q backend.SendAsk) (*backend.SendPlan, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	t, err := s.ResolveRef(state.Ref{Arg: q.Ref, Label: q.Label, Agent: l.Agent}, policy.OpSend)
	if err != nil {
		return nil, err
	}
	route, wo, err := l.route(s, t.Agent, "send")
	if err != nil {
		return nil, err
	}
	p := &backend.SendPlan{State: s, Launcher: q.Runs.Launcher(s), Engine: q.Engine}
	if route.ThroughGateway() {
		// the engine first (a usage error), then the gateway answers
		// (handshake, credentials: exit 10, 3, 5) and has the session,
		// before a run exists
		if p.Engine, err = p.Launcher.ChooseEngineFor(route, t.Agent, q.Engine, q.OpenClaw); err != nil {
			return nil, err
		}
		if err := launch.CheckTarget(s, t.Agent, t.Key, route, wo); err != nil {
			return nil, err
		}
	} else if err := launch.Preflight(s, t); err != nil {
		return nil, err
	} else if s.Era(t.Agent) == era.SQLite {
		// an OpenClaw process beside us that runs (or has just written)
		// the session: exit 10 before a run exists, not a failed run
		if err := launch.CheckTarget(s, t.Agent, t.Key, route, wo); err != nil {
			return nil, err
		}
	}
	if s.SendPolicy(t) == "deny" {
		return nil, apperr.Forbiddenf("%s", policy.MsgSendBlocked).With("sessionKey", t.DisplayKey)
	}
	if !route.ThroughGateway() {
		if p.Engine, err = p.Launcher.ChooseEngine(q.Engine, q.OpenClaw); err != nil {
			return nil, err
		}
	}
	if err := launch.CheckEngine(s, t, p.Engine, p.Launcher.Getenv); err != nil {
		return nil, err
	}
	p.Target = runs.Session{Key: t.Key, DisplayKey: t.DisplayKey, AgentID: t.Agent, SessionID: t.Entry.SessionID, Channel: s.ChannelOf(t.Entry)}
	p.Requester = localRequester(s)
	return p, nil
}

// localRequester describes the --as session for a run: its stored key
// (for the ping-pong turns), the raw key as given (what OpenClaw's prompts
// show) and its channel; nil for the host operator.
func localRequester(s *state.State) *runs.Session {
	if s.Req.Operator() {
		return nil
	}
	r := &runs.Session{Key: s.Req.Key, DisplayKey: s.Req.Raw, AgentID: s.Req.Agent}
	if t, err := s.Lookup(s.Req.Raw); err == nil && t != nil {
		r.Key = t.Key
		r.SessionID = t.Entry.SessionID
		r.Channel = s.ChannelOf(t.Entry)
	}
	return r
}
