package lifecyclecmd

import (
	"context"
	"net/url"
	"strconv"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/lifecycle"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/state"
)

// remote picks the gateway the lifecycle goes through, nil for the files:
// an endpoint the invocation selects (--gateway, --context,
// $OPENCLAW_GATEWAY_URL, the current context), else, when one of agents
// keeps a 2026.8+ SQLite store and a gateway's lock in the state dir names
// a live process, that local gateway (logged at --log-level debug).
func remote(f *cmdutil.Factory, s *state.State, agents []string) (*lifecycle.Remote, error) {
	eps, err := f.GatewayEndpoints()
	if err != nil {
		return nil, err
	}
	if len(eps) > 1 {
		return nil, apperr.Usagef("delete, reset, archive and prune go through one gateway; %d were selected", len(eps))
	}
	if len(eps) == 1 {
		f.Log.Debug("lifecycle through the selected gateway", "gateway", eps[0].String(), "source", eps[0].URLSource)
		return newRemote(eps[0]), nil
	}
	sqlite := false
	for _, a := range agents {
		if s.Era(a) == sqlitestore.EraSQLite {
			sqlite = true
		}
	}
	if !sqlite {
		return nil, nil
	}
	// Only the state dir's own gateway lock counts (no port probe: another
	// state dir's gateway may listen on the configured port).
	lg := gateway.DetectLocal(gateway.DetectInput{StateDir: s.Dir.Path})
	if lg == nil {
		f.Log.Debug("no live gateway holds the state dir: writing the SQLite store directly", "stateDir", s.Dir.Path)
		return nil, nil
	}
	in := gateway.Inputs{Getenv: f.Getenv, TokenFile: f.Flags.GatewayTokenFile, Insecure: f.Flags.InsecureGateway, Fingerprint: f.Flags.GatewayFingerprint}
	if s.Cfg != nil {
		in.Config = s.Cfg.Raw
	}
	e, err := gateway.LocalEndpoint(in)
	if err != nil {
		return nil, err
	}
	if u, perr := url.Parse(e.URL); perr == nil && lg.Port > 0 && gateway.IsLoopbackHost(u.Hostname()) {
		u.Host = "127.0.0.1:" + strconv.Itoa(lg.Port)
		e.URL = u.String()
	}
	f.Log.Debug("a live OpenClaw gateway holds the state dir: going through it", "pid", lg.PID, "lock", lg.LockPath, "gateway", e.String())
	return newRemote(e), nil
}

func newRemote(e gateway.Endpoint) *lifecycle.Remote {
	return &lifecycle.Remote{URL: e.String(), Dial: func(ctx context.Context) (lifecycle.Gateway, error) {
		o, err := e.Options().WithDefaultDeviceFiles()
		if err != nil {
			o = e.Options()
		}
		c, err := gateway.Dial(ctx, o)
		if err != nil {
			return nil, err
		}
		return c, nil
	}}
}
