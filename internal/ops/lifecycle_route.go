package ops

import (
	"sync"

	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/lifecycle"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// lifecycle runs op with the lifecycle options of this invocation: each
// agent's writes open on the route lifecycleRoute chooses for it.
func (o *Ops) lifecycle(s *state.State, dryRun, force bool, op func(*lifecycle.Options) (*LifecycleResult, error)) (*LifecycleResult, error) {
	route, wo, err := o.lifecycleRoute(s)
	if err != nil {
		return nil, err
	}
	lo := lifecycle.Options{DryRun: dryRun, Force: force, Now: o.cfg.Now, Open: func(agent string) (sessionwrite.Writes, error) {
		r, err := route(agent)
		if err != nil {
			return nil, err
		}
		return sessionwrite.OpenLifecycle(s, agent, r, wo)
	}}
	return op(&lo)
}

// lifecycleRoute is where delete, reset, archive and prune write an
// agent's sessions (sessionwrite.Choose): the one gateway the invocation
// selects (several are a usage error: they go through one gateway), else
// for an agent on a 2026.8+ SQLite store this host's live gateway for the
// state dir (looked for once, said at debug level), else the agent's
// store, written directly.
func (o *Ops) lifecycleRoute(s *state.State) (func(agent string) (sessionwrite.Route, error), sessionwrite.Options, error) {
	wo := sessionwrite.Options{LockTimeout: o.cfg.LockTimeout, Now: o.cfg.Now}
	named, err := o.oneHost("delete, reset, archive and prune go through one gateway; %d were selected")
	if err != nil {
		return nil, wo, err
	}
	g := &sessionwrite.Gateways{Log: func(m string) { o.debug(m) }}
	wo.Gateways = g
	switch {
	case named != nil:
		o.debug("lifecycle through the selected gateway", "gateway", named.String(), "source", named.URLSource)
		g.Named = named
	default:
		var once sync.Once
		var ep gateway.Endpoint
		var found string
		var lerr error
		g.Local = func() (gateway.Endpoint, string, error) {
			once.Do(func() {
				e, live, err := o.localGateway(s)
				if err != nil {
					o.debug("no live gateway holds the state dir: writing the SQLite store directly", "stateDir", s.Dir.Path, "reason", err.Error())
					lerr = err
					return
				}
				o.debug("a live OpenClaw gateway holds the state dir: going through it", "found", live.Describe(), "gateway", e.String(), "auth", e.AuthSource)
				ep, found = e, live.Describe()
			})
			return ep, found, lerr
		}
	}
	return func(agent string) (sessionwrite.Route, error) { return sessionwrite.Choose(s, agent, wo) }, wo, nil
}
