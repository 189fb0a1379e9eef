package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/lifecycle"
	"github.com/openclaw/sessions/internal/state"
)

// lifecycle runs op with the lifecycle options of agents, through the
// gateway chosen for them (see lifecycleRemote), closed after.
func (o *Ops) lifecycle(s *state.State, agents []string, dryRun, force bool, op func(*lifecycle.Options) (*LifecycleResult, error)) (*LifecycleResult, error) {
	lo := lifecycle.Options{DryRun: dryRun, Force: force, LockTimeout: o.cfg.LockTimeout, Now: o.cfg.Now}
	r, err := o.lifecycleRemote(s, agents)
	if err != nil {
		return nil, err
	}
	if r != nil {
		defer r.Close()
	}
	lo.Remote = r
	return op(&lo)
}

// lifecycleRemote picks the gateway the lifecycle goes through, nil for
// the files: an endpoint the invocation selects, else, when one of agents
// keeps a 2026.8+ SQLite store and this host's gateway for the state dir
// is live, that gateway with the config's credentials.
func (o *Ops) lifecycleRemote(s *state.State, agents []string) (*lifecycle.Remote, error) {
	eps, err := o.endpoints()
	if err != nil {
		return nil, err
	}
	if len(eps) > 1 {
		return nil, apperr.Usagef("delete, reset, archive and prune go through one gateway; %d were selected", len(eps))
	}
	if len(eps) == 1 {
		o.debug("lifecycle through the selected gateway", "gateway", eps[0].String(), "source", eps[0].URLSource)
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
	e, live, err := o.localGateway(s)
	if err != nil {
		o.debug("no live gateway holds the state dir: writing the SQLite store directly", "stateDir", s.Dir.Path, "reason", err.Error())
		return nil, nil
	}
	o.debug("a live OpenClaw gateway holds the state dir: going through it", "found", live.Describe(), "gateway", e.String(), "auth", e.AuthSource)
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
