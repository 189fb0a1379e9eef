package hostset

import (
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/engine"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// Writes is where the writes of one operation go: the one gateway the
// invocation names (Host, whose every write goes through it:
// gatewayhost.Gateway; nil: this host's state dir, whose local.Local routes
// each agent's writes itself), and the options every write of it opens
// with.
type Writes struct {
	t    *Set
	s    *state.State // this host's state (nil: a named gateway only)
	Host *Host
	// Options: the lock timeout, the clock and, for this host's state
	// dir, its live gateway (looked for once per Set, when a 2026.8+
	// agent is written).
	Options sessionwrite.Options
}

// Writes applies the one-host rule (what: the refusal's start, see
// OneHost) and prepares the write options for s (nil s: a named gateway
// only — a write with no gateway named then has nowhere to go).
func (t *Set) Writes(s *state.State, what string, lockTimeout time.Duration, now func() time.Time) (*Writes, error) {
	h, err := t.OneHost(what)
	if err != nil {
		return nil, err
	}
	w := &Writes{t: t, s: s, Host: h, Options: sessionwrite.Options{LockTimeout: lockTimeout, Now: now}}
	g := &sessionwrite.Gateways{Log: func(m string) { t.in.Debug(m) }}
	if h == nil && s != nil {
		g.Local = func() (gateway.Endpoint, string, error) { return t.LiveGateway(s) }
	}
	w.Options.Gateways = g
	return w, nil
}

// Route is where agent's session writes go for these writes: through
// the gateway the invocation names (a gateway host writes every agent
// through it), else in this host's state dir as its agent's era and live
// gateway say (sessionwrite.Choose). The one place a run's writes are
// routed: the detached runner asks it for each agent and chooses nothing.
func (w *Writes) Route(agent string) (sessionwrite.Route, error) {
	if w.Host != nil {
		return sessionwrite.GatewayRoute(w.Host.ep), nil
	}
	if w.s == nil {
		return sessionwrite.Route{}, apperr.Statef("no state dir and no gateway: nowhere to write agent %s's sessions", agent)
	}
	return sessionwrite.Choose(w.s, agent, w.Options)
}

// LocalWrites are the options of the writes made on this host's state
// dir s (local.Local.Writes): the lock timeout, the clock, and this
// host's live gateway for s, looked for once per Set when a 2026.8+
// agent is written.
func (t *Set) LocalWrites(s *state.State, lockTimeout time.Duration, now func() time.Time) sessionwrite.Options {
	return sessionwrite.Options{LockTimeout: lockTimeout, Now: now, Gateways: &sessionwrite.Gateways{
		Log:   func(m string) { t.in.Debug(m) },
		Local: func() (gateway.Endpoint, string, error) { return t.LiveGateway(s) },
	}}
}

// RunSetup is what a host makes a run of these writes ready with
// (backend.RunSetup): the write options, the launcher of a run
// recorded in a state (Launcher, with the gateway the invocation names),
// and the state the run is recorded in — the home of the runs made
// through the named gateway (RunHome, opened with env), else this host's
// state.
func (w *Writes) RunSetup(env state.Options, in RunInputs) backend.RunSetup {
	named := w.Host
	return backend.RunSetup{
		Writes:   w.Options,
		Launcher: func(s *state.State) *launch.Launcher { return w.t.Launcher(s, named, in) },
		Home: func() (*state.State, error) {
			switch {
			case named != nil:
				return w.t.RunHome(*named, env)
			case w.s != nil:
				return w.s, nil
			}
			return nil, apperr.Statef("no state dir and no gateway: nowhere to record a run")
		},
	}
}

// RunInputs is what starting a run needs besides the hosts: the
// invocation's lock timeout and logger.
type RunInputs struct {
	LockTimeout time.Duration
	Launch      launch.Launcher // Getenv, Log: copied into each launcher
}

// Launcher starts the runs of this set on s (this host's state, or a
// gateway's run home — RunHome): the auto engine's probe of this host's
// live gateway, the gateway a gateway-engine turn runs in, and the flags
// the detached runner gets. named: the gateway the invocation names (nil:
// none).
func (t *Set) Launcher(s *state.State, named *Host, in RunInputs) *launch.Launcher {
	l := in.Launch
	l.State, l.ProbeTimeout = s, ProbeTimeout
	if named != nil {
		ep := named.ep
		l.Named = &ep
	}
	l.ProbeLocalGateway = func() (string, error) { return t.ProbeLive(s) }
	l.TurnGateway = func() (gateway.Endpoint, error) { return t.TurnGateway(s) }
	l.RunnerFlags = func() []string { return runnerFlags(in.LockTimeout) }
	l.RunnerGateway = func(eng string) *gatewaysel.Selector { return t.runnerGateway(eng, named) }
	return &l
}

// runnerFlags are the global flags the detached runner of a run gets:
// --lock-timeout.
func runnerFlags(lockTimeout time.Duration) []string {
	if lockTimeout > 0 {
		return []string{"--lock-timeout", lockTimeout.String()}
	}
	return nil
}

// runnerGateway is the gateway selector the detached runner of a run with
// engine resolves its gateway with, recorded in the run: for a
// gateway-engine run the invocation's (its token file's path absolute, for
// a runner that does not share the caller's working directory) — a
// gateway of the current context by that context's name, so the runner
// talks to the same one if the current context changes. nil: none (other
// engines, or a selector that names nothing: the runner finds this host's
// live gateway itself).
func (t *Set) runnerGateway(eng string, named *Host) *gatewaysel.Selector {
	if eng != engine.SpecGateway {
		return nil
	}
	sel := t.in.Gateway.Portable()
	if !sel.Named() && named != nil && named.ep.Context != "" && named.ep.URLSource == "context" {
		sel.Contexts = []string{named.ep.Context}
	}
	if sel.IsZero() {
		return nil
	}
	return &sel
}

// RunHome opens the home of the runs made through h on this machine
// (runs.GatewayHome, created when missing) as the state the run records,
// the outbox and the runner use: no OpenClaw state dir is needed.
func (t *Set) RunHome(h Host, env state.Options) (*state.State, error) {
	home, err := runs.GatewayHome(t.in.Getenv, h.ep.URL, true)
	if err != nil {
		return nil, err
	}
	t.in.Debug("run records of the gateway kept in "+home, "gateway", h.String())
	env.StateDir = home
	return state.Open(env)
}

// RunStore is the run store kept on this machine for the runs made
// through h (runs.GatewayHome; not created).
func (t *Set) RunStore(h Host) (*runs.Store, error) {
	home, err := runs.GatewayHome(t.in.Getenv, h.ep.URL, false)
	if err != nil {
		return nil, err
	}
	t.in.Debug("runs through the gateway "+h.String()+" are kept in "+home, "gateway", h.String())
	return runs.Open(home), nil
}
