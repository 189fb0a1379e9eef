package send

import (
	"context"
	"github.com/openclaw/sessions/internal/era"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/tidwall/gjson"
)

// NamedGateway is the one gateway this invocation names for a write
// (--gateway, --context, $OPENCLAW_GATEWAY_URL, the current context), or
// nil: work on the local state dir. Several are a usage error.
func NamedGateway(f *cmdutil.Factory) (*gateway.Endpoint, error) {
	o, err := f.WriteOptions(nil)
	if err != nil {
		return nil, err
	}
	return o.Gateways.Named, nil
}

// GatewayState opens the home of the runs made through ep on this machine
// (runs.GatewayHome, created when missing) as the state the run records,
// the outbox and the runner use: no OpenClaw state dir is needed.
func GatewayState(f *cmdutil.Factory, ep gateway.Endpoint) (*state.State, error) {
	home, err := runs.GatewayHome(f.Getenv, ep.URL, true)
	if err != nil {
		return nil, err
	}
	f.Log.Debug("run records of the gateway kept in "+home, "gateway", ep.String())
	return state.Open(state.Options{StateDir: home, Env: f.Env, Warn: f.Warn})
}

// runRemote is send through the gateway the invocation names: the session
// is found with sessions.list, every turn is the gateway's own (the gateway
// engine), the run record is kept in the gateway's home on this machine.
// With --as (or $OPENCLAW_SESSION_KEY) the requester is checked against that
// host's config (config.get: visibility, agent-to-agent, send policy, as
// locally), recorded in the run (the ping-pong turns run on its session)
// and the run takes the host's ping-pong turns and turn timeout.
func runRemote(o *Options, ep gateway.Endpoint) error {
	f := o.f
	route := sessionwrite.Route{Era: era.Gateway, Endpoint: ep, Named: true}
	f.Log.Debug("send through the gateway this invocation names", "gateway", ep.String(), "auth", ep.AuthSource)
	eng, err := ChooseEngineFor(f, nil, route, "", o.Engine, o.OpenClaw)
	if err != nil {
		return err
	}
	b := RemoteBackend(f, ep)
	defer b.Close()
	ctx := context.Background()
	sess, err := b.SessionFor(ctx, o.Ref, o.Label, policy.OpSend)
	if err != nil {
		return err
	}
	acc := b.Requester()
	if RemoteSendPolicy(acc, sess) == "deny" {
		return apperr.Forbiddenf("%s", policy.MsgSendBlocked).With("sessionKey", sess.Key)
	}
	var req *runs.Session
	if acc != nil {
		if req, err = RemoteRequester(ctx, b, acc); err != nil {
			return err
		}
	}
	s, err := GatewayState(f, ep)
	if err != nil {
		return err
	}
	rec := &runs.Record{
		RunID:          runs.NewID(),
		Kind:           runs.KindSend,
		Status:         runs.StatusAccepted,
		CreatedAt:      f.Now().UnixMilli(),
		Target:         runs.Session{Key: sess.Key, DisplayKey: sess.Key, AgentID: sess.Agent, SessionID: sess.SessionID, Channel: sess.Row.Channel},
		Requester:      req,
		Message:        o.Message,
		TimeoutSeconds: o.Timeout,
		Engine:         eng,
		Deliver:        o.Deliver,
		Steps:          []runs.Step{},
		Settings:       RemoteSettings(acc, b.Where()),
	}
	return Launch(f, s, rec, time.Duration(o.Timeout)*time.Second)
}

// RemoteBackend is the reader of the gateway ep for send and spawn, with
// the requester (--as) resolved against that host's config.
func RemoteBackend(f *cmdutil.Factory, ep gateway.Endpoint) *backend.Gateway {
	b := &backend.Gateway{Endpoint: ep, Agent: f.Flags.Agent, Log: func(m string) { f.Log.Debug(m) }}
	b.As = func(ctx context.Context, c *gateway.Client) (*state.Access, error) {
		return f.AsOverGateway(ctx, c, b.Where())
	}
	return b
}

// RemoteSendPolicy is the send policy of a session over a gateway: its
// row's sendPolicy, and with a requester (whose check read the host's
// config) that config's session.sendPolicy rules, as locally.
func RemoteSendPolicy(acc *state.Access, sess *backend.Session) string {
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

// RemoteRequester is the run's requester over a gateway: its key there,
// the key as given (what OpenClaw's prompts show), and its sessionId and
// channel when the gateway lists it (an agent's main session may not exist
// yet).
func RemoteRequester(ctx context.Context, b *backend.Gateway, acc *state.Access) (*runs.Session, error) {
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

// RemoteSettings are the run settings read from the gateway host's config
// when the requester's check read it (nil without --as: OpenClaw's
// defaults, 5 ping-pong turns and 600 s a turn).
func RemoteSettings(acc *state.Access, where string) *runs.Settings {
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
