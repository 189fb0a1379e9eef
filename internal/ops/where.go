package ops

import (
	"strings"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostset"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/state"
)

// requester is who asks, for a gateway to check against its config.
func (o *Ops) requester() hostset.Requester {
	as, from := o.as()
	if strings.TrimSpace(as) == "" {
		return hostset.Requester{}
	}
	return hostset.Requester{As: as, From: from, Agent: o.cfg.Agent, Sandboxed: o.sandboxed()}
}

// closeAll closes readers (or hosts).
func closeAll[R backend.Reader](rs []R) {
	for _, r := range rs {
		_ = r.Close()
	}
}

// Refusals of the one-host rule (hostset.Set.OneHost): what works on one host.
const (
	oneHostRuns      = "send, spawn and wait work on one host"
	oneHostPatch     = "patch changes one session on one host"
	oneHostLifecycle = "delete, reset, archive and prune work on one host"
)

// runSetup is what a host makes a run (send, spawn) of the writes w
// ready with: w's routes, the launcher of the run (the invocation's
// environment, logger and lock timeout), and where the run is recorded
// (hostset.Writes.RunSetup).
func (o *Ops) runSetup(w *hostset.Writes) backend.RunSetup {
	return o.where.RunSetup(w, state.Options{Env: o.cfg.Env, Warn: o.warn}, launch.Launcher{Getenv: o.cfg.Getenv, Log: o.cfg.Log})
}

// Scope is what an invocation works on, as a front-end may show it.
type Scope struct {
	// Gateways are the URLs of the gateways the invocation names, in the
	// order given (none: this host's state dir).
	Gateways []string
	// Contexts are their context names ("" for a gateway given by URL).
	Contexts []string
	// Fleet: several hosts (--context all, several contexts): answers
	// carry each row's context and each failing host apart.
	Fleet bool
}

// Local reports whether the invocation works on this host's state dir.
func (s Scope) Local() bool { return len(s.Gateways) == 0 }

// Scope resolves what this invocation works on (the chooser's answer for
// reads): exit 2 for contradicting flags, exit 4 for an unknown context.
func (o *Ops) Scope() (Scope, error) {
	t, err := o.where.Set()
	if err != nil {
		return Scope{}, err
	}
	var sc Scope
	for _, h := range t.Hosts() {
		sc.Gateways = append(sc.Gateways, h.URL())
		sc.Contexts = append(sc.Contexts, h.Context())
	}
	sc.Fleet = t.Fleet()
	return sc, nil
}
