package lifecyclecmd

import (
	"context"
	"github.com/openclaw/sessions/internal/era"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/lifecycle"
	"github.com/openclaw/sessions/internal/state"
)

// remote picks the gateway the lifecycle goes through, nil for the files:
// an endpoint the invocation selects (--gateway, --context,
// $OPENCLAW_GATEWAY_URL, the current context), else, when one of agents
// keeps a 2026.8+ SQLite store and this host's gateway for the state dir is
// live (cmdutil.LocalGateway: its lock names a live process, or its port
// answers), that gateway with the config's credentials (logged at
// --log-level debug).
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
		if s.Era(a) == era.SQLite {
			sqlite = true
		}
	}
	if !sqlite {
		return nil, nil
	}
	// This host's gateway for the state dir, found the one way every
	// command finds it (cmdutil.LocalGateway: its lock, or its port).
	e, live, err := f.LocalGateway(s)
	if err != nil {
		f.Log.Debug("no live gateway holds the state dir: writing the SQLite store directly", "stateDir", s.Dir.Path, "reason", err.Error())
		return nil, nil
	}
	f.Log.Debug("a live OpenClaw gateway holds the state dir: going through it", "found", live.Describe(), "gateway", e.String(), "auth", e.AuthSource)
	return newRemote(e), nil
}

func newRemote(e gateway.Endpoint) *lifecycle.Remote {
	return &lifecycle.Remote{URL: e.String(), Dial: func(ctx context.Context) (lifecycle.Gateway, error) {
		c, err := gateway.Connect(ctx, e, nil, nil)
		if err != nil {
			return nil, err
		}
		return c, nil
	}}
}
