package send

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
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
func runRemote(o *Options, ep gateway.Endpoint) error {
	f := o.f
	if err := f.RefuseAsOverGateway(); err != nil {
		return err
	}
	route := sessionwrite.Route{Era: sessionwrite.EraGateway, Endpoint: ep, Named: true}
	f.Log.Debug("send through the gateway this invocation names", "gateway", ep.String(), "auth", ep.AuthSource)
	eng, err := ChooseEngineFor(f, nil, route, "", o.Engine, o.OpenClaw)
	if err != nil {
		return err
	}
	b := &backend.Gateway{Endpoint: ep, Agent: f.Flags.Agent, Log: func(m string) { f.Log.Debug(m) }}
	defer b.Close()
	sess, err := b.Session(context.Background(), o.Ref, o.Label)
	if err != nil {
		return err
	}
	if sess.Row.SendPolicy == "deny" {
		return apperr.Forbiddenf("%s", policy.MsgSendBlocked).With("sessionKey", sess.Key)
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
		Message:        o.Message,
		TimeoutSeconds: o.Timeout,
		Engine:         eng,
		Deliver:        o.Deliver,
		Steps:          []runs.Step{},
	}
	return Launch(f, s, rec, time.Duration(o.Timeout)*time.Second)
}
