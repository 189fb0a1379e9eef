package ops

import (
	"context"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/target"
	"github.com/tidwall/gjson"
)

// SendRequest is a message for a session and how its turn is run.
type SendRequest struct {
	Ref     string // a key, sessionId or unique prefix; or Label
	Label   string // the session with this label (Config.Agent picks the agent)
	Message string
	// Timeout is how long to wait for the reply; 0: return at once with
	// the run accepted. Giving up does not stop the run.
	Timeout time.Duration
	// Engine is the engine spec (launch.ResolveEngineDeliver: "" is auto);
	// OpenClaw the openclaw executable (--openclaw); Deliver the announce's
	// exec:COMMAND.
	Engine, OpenClaw, Deliver string
	// OnWait is told when the wait for the reply starts and ends.
	OnWait OnWait
}

// ResolveEngineDeliver completes and checks the engine and delivery specs
// of a send or spawn before anything else (usage errors): an empty one
// takes $SESSIONS_ENGINE / $SESSIONS_DELIVER.
func (o *Ops) ResolveEngineDeliver(eng, deliver *string) error {
	return launch.ResolveEngineDeliver(o.cfg.Getenv, eng, deliver)
}

// sendPlan is a send made ready on either path (the local state dir, or
// the gateway the invocation names): everything refusable has been
// refused, nothing is written yet.
type sendPlan struct {
	s         *state.State // where the run is recorded
	l         *launch.Launcher
	target    runs.Session
	requester *runs.Session
	engine    string
	settings  *runs.Settings
}

// Send records a run that sends q.Message into a session, starts its
// detached runner (the target's turn, the ping-pong with the requester,
// the announce) and waits up to q.Timeout for the target's reply.
// Everything that can be refused is refused before anything is written:
// the session must exist and be visible to the requester, agent-to-agent
// and the send policy must allow it (exit 3), the engine must be able to
// run the turn. Through a gateway (the one the invocation names, or the
// live gateway of a 2026.8+ agent) the turn is the gateway's own.
// With q.Timeout: the reply, or an error carrying the run id (the run
// goes on when the wait gives up).
func (o *Ops) Send(ctx context.Context, q SendRequest) (*RunResult, error) {
	if strings.TrimSpace(q.Message) == "" {
		return nil, apperr.Usagef("message required")
	}
	if q.Timeout < 0 {
		return nil, apperr.Usagef("--timeout must be 0 or more seconds (got %d)", int(q.Timeout.Seconds()))
	}
	// an engine or delivery not given takes $SESSIONS_ENGINE/$SESSIONS_DELIVER
	// (a front-end that resolved them already changes nothing)
	if err := o.ResolveEngineDeliver(&q.Engine, &q.Deliver); err != nil {
		return nil, err
	}
	w, err := o.writes(nil, oneHostRuns)
	if err != nil {
		return nil, err
	}
	var p *sendPlan
	if w.Host != nil {
		p, err = o.sendThroughNamed(ctx, q, *w.Host, w)
	} else {
		p, err = o.sendLocal(q)
	}
	if err != nil {
		return nil, err
	}
	rec := &runs.Record{
		RunID:          runs.NewID(),
		Kind:           runs.KindSend,
		Status:         runs.StatusAccepted,
		CreatedAt:      o.Now().UnixMilli(),
		Target:         p.target,
		Requester:      p.requester,
		Message:        q.Message,
		TimeoutSeconds: int(q.Timeout / time.Second),
		Engine:         p.engine,
		Deliver:        q.Deliver,
		Steps:          []runs.Step{},
		Settings:       p.settings,
	}
	if rec.Engine == "" {
		rec.Engine = "provider"
	}
	rs, err := p.l.Launch(p.s, rec)
	if err != nil {
		return nil, err
	}
	if q.Timeout <= 0 {
		return acceptedResult(rec), nil
	}
	return o.maskRunResult(waitRun(ctx, rs, rec, q.Timeout, q.OnWait))
}

// sendLocal makes a send ready on this host's state dir; its writes go
// where the chooser says (writeRoute): the agent's files or database, or
// the live gateway of a 2026.8+ agent.
func (o *Ops) sendLocal(q SendRequest) (*sendPlan, error) {
	s, err := o.openState()
	if err != nil {
		return nil, err
	}
	t, err := s.ResolveRef(state.Ref{Arg: q.Ref, Label: q.Label, Agent: o.cfg.Agent}, policy.OpSend)
	if err != nil {
		return nil, err
	}
	tg, err := o.target()
	if err != nil {
		return nil, err
	}
	w, err := tg.Writes(s, oneHostRuns, o.cfg.LockTimeout, o.cfg.Now)
	if err != nil {
		return nil, err
	}
	route, err := w.Route(s, t.Agent, "send")
	if err != nil {
		return nil, err
	}
	wo := w.Options
	p := &sendPlan{s: s, l: o.launcher(tg, s, nil), engine: q.Engine}
	if route.Era == era.Gateway {
		// the engine first (a usage error), then the gateway answers
		// (handshake, credentials: exit 10, 3, 5) and has the session,
		// before a run exists
		if p.engine, err = p.l.ChooseEngineFor(route, t.Agent, q.Engine, q.OpenClaw); err != nil {
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
	if route.Era != era.Gateway {
		if p.engine, err = p.l.ChooseEngine(q.Engine, q.OpenClaw); err != nil {
			return nil, err
		}
	}
	if err := launch.CheckEngine(s, t, p.engine, o.cfg.Getenv); err != nil {
		return nil, err
	}
	p.target = runs.Session{Key: t.Key, DisplayKey: t.DisplayKey, AgentID: t.Agent, SessionID: t.Entry.SessionID, Channel: s.ChannelOf(t.Entry)}
	p.requester = localRequester(s)
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

// sendThroughNamed makes a send ready through the gateway the invocation
// names (route): the session is found with sessions.list, every turn is
// the gateway's own (the gateway engine), the run record is kept in the
// gateway's home on this machine. With --as (or $OPENCLAW_SESSION_KEY) the
// requester is checked against that host's config (config.get:
// visibility, agent-to-agent, send policy, as locally), recorded in the
// run (the ping-pong turns run on its session) and the run takes the
// host's ping-pong turns and turn timeout.
func (o *Ops) sendThroughNamed(ctx context.Context, q SendRequest, h target.Host, w *target.Writes) (*sendPlan, error) {
	tg, _ := o.target() // w came from it
	route, err := sessionwrite.Choose(nil, "", w.Options)
	if err != nil {
		return nil, err
	}
	o.debug("send through the gateway this invocation names", "gateway", h.String(), "auth", route.Endpoint.AuthSource)
	eng, err := o.launcher(tg, nil, &h).ChooseEngineFor(route, "", q.Engine, q.OpenClaw)
	if err != nil {
		return nil, err
	}
	b := o.gatewayReader(h)
	defer b.Close()
	sess, err := b.SessionFor(ctx, q.Ref, q.Label, policy.OpSend)
	if err != nil {
		return nil, err
	}
	acc := b.Requester()
	if remoteSendPolicy(acc, sess) == "deny" {
		return nil, apperr.Forbiddenf("%s", policy.MsgSendBlocked).With("sessionKey", sess.Key)
	}
	var req *runs.Session
	if acc != nil {
		if req, err = remoteRequester(ctx, b, acc); err != nil {
			return nil, err
		}
	}
	s, err := o.runHome(tg, h)
	if err != nil {
		return nil, err
	}
	return &sendPlan{s: s, l: o.launcher(tg, s, &h), engine: eng, requester: req, settings: remoteSettings(acc, b.Where()),
		target: runs.Session{Key: sess.Key, DisplayKey: sess.Key, AgentID: sess.Agent, SessionID: sess.SessionID, Channel: sess.Row.Channel}}, nil
}

// remoteSendPolicy is the send policy of a session over a gateway: its
// row's sendPolicy, and with a requester (whose check read the host's
// config) that config's session.sendPolicy rules, as locally.
func remoteSendPolicy(acc *state.Access, sess *backend.Session) string {
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

// remoteRequester is the run's requester over a gateway: its key there,
// the key as given (what OpenClaw's prompts show), and its sessionId and
// channel when the gateway lists it (an agent's main session may not exist
// yet).
func remoteRequester(ctx context.Context, b *backend.Gateway, acc *state.Access) (*runs.Session, error) {
	r := &runs.Session{Key: acc.Req.Key, DisplayKey: acc.Req.Raw, AgentID: acc.Req.Agent}
	ctx, cancel := context.WithTimeout(ctx, backend.CallTimeout)
	defer cancel()
	c, err := b.Client(ctx)
	if err != nil {
		return nil, err
	}
	page, err := c.ListAllSessions(ctx, gateway.ListParams{AgentID: acc.Req.Agent, IncludeGlobal: true}, 0)
	if err != nil {
		return nil, err
	}
	for _, s := range page.Sessions {
		if row, err := backend.RowOf(s.Raw); err == nil && row.Key == acc.Req.Key {
			r.SessionID, r.Channel = row.SessionID, row.Channel
			break
		}
	}
	return r, nil
}

// remoteSettings are the run settings read from the gateway host's config
// when the requester's check read it (nil without --as: OpenClaw's
// defaults, 5 ping-pong turns and 600 s a turn).
func remoteSettings(acc *state.Access, where string) *runs.Settings {
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
