package gatewayhost

import (
	"context"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/tidwall/gjson"
)

// PlanSend makes a send ready through this gateway, the one the
// invocation names: the engine is the gateway's own (any other is a
// usage error), the session is found with sessions.list, and the run is
// recorded in the gateway's home on this machine. With --as (or
// $OPENCLAW_SESSION_KEY) the requester is checked against the host's
// config (config.get: visibility, agent-to-agent, send policy, as
// locally), recorded in the run (the ping-pong turns run on its session)
// and the run takes the host's ping-pong turns and turn timeout.
func (g *Gateway) PlanSend(ctx context.Context, q backend.SendAsk) (*backend.SendPlan, error) {
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
	return &backend.SendPlan{State: s, Launcher: q.Runs.Launcher(s), Engine: eng, Requester: req, Settings: settingsOf(acc, g.Where()),
		Target: runs.Session{Key: sess.Key, DisplayKey: sess.Key, AgentID: sess.Agent, SessionID: sess.SessionID, Channel: sess.Row.Channel}}, nil
}

// sendPolicyOf is the send policy of a session over a gateway: its row's
// sendPolicy, and with a requester (whose check read the host's config)
// that config's session.sendPolicy rules, as locally.
func sendPolicyOf(acc *state.Access, sess *backend.Session) string {
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
