package backend

import (
	"context"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/tidwall/gjson"
)

// SendAsk is a send as a host makes it ready: the session it goes into and
// the engine asked for.
type SendAsk struct {
	Ref   string // a key, sessionId or unique prefix; or Label
	Label string // the session with this label (--agent picks the agent)
	// Engine is the engine spec (launch.ResolveEngineDeliver resolved it;
	// "" is auto), OpenClaw the openclaw executable (--openclaw).
	Engine, OpenClaw string
	Runs             RunSetup
}

// SendPlan is a send made ready on a host: everything refusable has been
// refused, nothing is written yet. Its run is recorded in State and
// started by Launcher.
type SendPlan struct {
	State    *state.State // where the run is recorded
	Launcher *launch.Launcher
	Target   runs.Session
	// Requester is the --as session (nil: the host operator).
	Requester *runs.Session
	// Engine is the engine the run records.
	Engine string
	// Settings are the run settings read from a gateway host's config
	// (nil: the state's own config, or OpenClaw's defaults).
	Settings *runs.Settings
}

// PlanSend makes a send ready on this host's state dir: the session
// resolved and visible (state.ResolveRef), its writes routed per agent
// (the agent's files or database, or the live gateway of a 2026.8+
// agent), what the runner could not do refused (launch.Preflight; through
// a gateway, or beside a running OpenClaw on SQLite, launch.CheckTarget),
// the send policy (exit 3), the engine chosen and able to run the turn.
func (l *Local) PlanSend(_ context.Context, q SendAsk) (*SendPlan, error) {
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
	p := &SendPlan{State: s, Launcher: q.Runs.Launcher(s), Engine: q.Engine}
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

// PlanSend makes a send ready through this gateway, the one the
// invocation names: the engine is the gateway's own (any other is a
// usage error), the session is found with sessions.list, and the run is
// recorded in the gateway's home on this machine. With --as (or
// $OPENCLAW_SESSION_KEY) the requester is checked against the host's
// config (config.get: visibility, agent-to-agent, send policy, as
// locally), recorded in the run (the ping-pong turns run on its session)
// and the run takes the host's ping-pong turns and turn timeout.
func (g *Gateway) PlanSend(ctx context.Context, q SendAsk) (*SendPlan, error) {
	route := sessionwrite.GatewayRoute(g.Endpoint)
	g.debug("send through the gateway this invocation names", "gateway", g.Endpoint.String(), "auth", g.Endpoint.AuthSource)
	eng, err := q.Runs.Launcher(nil).ChooseEngineFor(route, "", q.Engine, q.OpenClaw)
	if err != nil {
		return nil, err
	}
	sess, err := g.SessionFor(ctx, q.Ref, q.Label, policy.OpSend)
	if err != nil {
		return nil, err
	}
	acc := g.Requester()
	if sendPolicyOf(acc, sess) == "deny" {
		return nil, apperr.Forbiddenf("%s", policy.MsgSendBlocked).With("sessionKey", sess.Key)
	}
	var req *runs.Session
	if acc != nil {
		if req, err = g.requesterSession(ctx, acc); err != nil {
			return nil, err
		}
	}
	s, err := q.Runs.Home()
	if err != nil {
		return nil, err
	}
	return &SendPlan{State: s, Launcher: q.Runs.Launcher(s), Engine: eng, Requester: req, Settings: settingsOf(acc, g.Where()),
		Target: runs.Session{Key: sess.Key, DisplayKey: sess.Key, AgentID: sess.Agent, SessionID: sess.SessionID, Channel: sess.Row.Channel}}, nil
}

// sendPolicyOf is the send policy of a session over a gateway: its row's
// sendPolicy, and with a requester (whose check read the host's config)
// that config's session.sendPolicy rules, as locally.
func sendPolicyOf(acc *state.Access, sess *Session) string {
	in := policy.SendInput{Key: sess.Key, EntryPolicy: sess.Row.SendPolicy,
		EntryChannel: gjson.GetBytes(sess.Raw, "channel").String(),
		LastChannel:  gjson.GetBytes(sess.Raw, "lastChannel").String(),
		ChatType:     gjson.GetBytes(sess.Raw, "chatType").String()}
	var cfg *policy.SendConfig
	if acc != nil {
		cfg = state.SendConfigOf(acc.Remote)
	}
	return policy.Send(cfg, in)
}

// requesterSession is a run's requester over this gateway: its key there,
// the key as given (what OpenClaw's prompts show), and its sessionId and
// channel when the gateway lists it (an agent's main session may not exist
// yet).
func (g *Gateway) requesterSession(ctx context.Context, acc *state.Access) (*runs.Session, error) {
	r := &runs.Session{Key: acc.Req.Key, DisplayKey: acc.Req.Raw, AgentID: acc.Req.Agent}
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	c, err := g.Client(ctx)
	if err != nil {
		return nil, err
	}
	page, err := c.ListAllSessions(ctx, gateway.ListParams{AgentID: acc.Req.Agent, IncludeGlobal: true}, 0)
	if err != nil {
		return nil, err
	}
	for _, s := range page.Sessions {
		if row, err := RowOf(s.Raw); err == nil && row.Key == acc.Req.Key {
			r.SessionID, r.Channel = row.SessionID, row.Channel
			break
		}
	}
	return r, nil
}

// settingsOf are the run settings read from the gateway host's config
// when the requester's check read it (nil without --as: OpenClaw's
// defaults, 5 ping-pong turns and 600 s a turn).
func settingsOf(acc *state.Access, where string) *runs.Settings {
	if acc == nil || acc.Remote == nil {
		return nil
	}
	turns := acc.Remote.PingPongTurns()
	st := &runs.Settings{From: "config.get on " + where, PingPongTurns: &turns}
	if t := acc.Remote.Defaults.TimeoutSeconds; t != nil && *t > 0 {
		v := *t
		st.TurnTimeoutSeconds = &v
	}
	return st
}
