package ops

import (
	"github.com/openclaw/sessions/internal/engine"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// launcher is what starting a run on s needs from this invocation's
// chooser: named is the gateway the invocation names (namedGateway; nil:
// none), s this host's state (nil through a named gateway, where the turn
// is the gateway's own).
func (o *Ops) launcher(s *state.State, named *gateway.Endpoint) *launch.Launcher {
	return &launch.Launcher{
		State: s, Getenv: o.cfg.Getenv, Log: o.cfg.Log, Named: named, ProbeTimeout: ProbeTimeout,
		ProbeLocalGateway: func() (string, error) { return o.probeLocalGateway(s) },
		TurnGateway:       func() (gateway.Endpoint, error) { return o.turnGateway(s) },
		RunnerFlags:       func(eng string) []string { return o.runnerFlags(eng, named) },
	}
}

// runnerFlags are the global flags the detached runner of a run with
// engine gets: --lock-timeout, and for a gateway-engine run the flags that
// name its gateway — a gateway of the current context by that context's
// name, so the runner talks to the same one if the current context changes.
func (o *Ops) runnerFlags(eng string, named *gateway.Endpoint) []string {
	var extra []string
	if o.cfg.LockTimeout > 0 {
		extra = append(extra, "--lock-timeout", o.cfg.LockTimeout.String())
	}
	if eng == engine.SpecGateway {
		extra = append(extra, launch.GatewayFlags(launch.GatewayInputs{Gateway: o.cfg.Gateway, TokenFile: o.cfg.GatewayTokenFile,
			Insecure: o.cfg.InsecureGateway, Fingerprint: o.cfg.GatewayFingerprint, Contexts: o.cfg.Contexts})...)
		if o.cfg.Gateway == "" && len(o.cfg.Contexts) == 0 && named != nil && named.Context != "" && named.URLSource == "context" {
			extra = append(extra, "--context", named.Context)
		}
	}
	return extra
}

// gatewayState opens the home of the runs made through ep on this machine
// (runs.GatewayHome, created when missing) as the state the run records,
// the outbox and the runner use: no OpenClaw state dir is needed.
func (o *Ops) gatewayState(ep gateway.Endpoint) (*state.State, error) {
	home, err := runs.GatewayHome(o.cfg.Getenv, ep.URL, true)
	if err != nil {
		return nil, err
	}
	o.debug("run records of the gateway kept in "+home, "gateway", ep.String())
	return state.Open(state.Options{StateDir: home, Env: o.cfg.Env, Warn: o.warn})
}

// namedWrite is the gateway this invocation names for a write (nil: work
// on the local state dir), with the write options and, when one is named,
// the route the chooser gives every write (sessionwrite.Choose). Several
// gateways are a usage error.
func (o *Ops) namedWrite() (*gateway.Endpoint, sessionwrite.Route, sessionwrite.Options, error) {
	wo, err := o.writeOptions(nil)
	if err != nil || wo.Gateways.Named == nil {
		return nil, sessionwrite.Route{}, wo, err
	}
	r, err := sessionwrite.Choose(nil, "", wo)
	return wo.Gateways.Named, r, wo, err
}
