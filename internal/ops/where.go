package ops

import (
	"strings"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/hostset"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/state"
)

// hostSet is where this invocation works (hostset.Resolve: the gateway
// flags, $OPENCLAW_GATEWAY_URL, the contexts file, the current context),
// resolved once: every operation asks it. Secrets stay inside it; never
// print them.
func (o *Ops) hostSet() (*hostset.Set, error) {
	o.setOnce.Do(func() {
		o.set, o.setErr = hostset.Resolve(o.hostInputs(o.cfg.Gateway))
	})
	return o.set, o.setErr
}

// requester is who asks, for a gateway to check against its config.
func (o *Ops) requester() hostset.Requester {
	as, from := o.as()
	if strings.TrimSpace(as) == "" {
		return hostset.Requester{}
	}
	return hostset.Requester{As: as, From: from, Agent: o.cfg.Agent, Sandboxed: o.sandboxed()}
}

// scope is the one decision of what a read works on: the local state dir
// (one Local reader) or the gateway(s) the invocation selects. fleet is
// true with --context all or several contexts: rows then say their context
// and a failing host is reported beside the others' rows. Close them.
func (o *Ops) scope() (readers []backend.Reader, fleet bool, err error) {
	t, err := o.hostSet()
	if err != nil {
		return nil, false, err
	}
	return t.Readers(o.local(), o.cfg.Agent, o.requester()), t.Fleet(), nil
}

// hostInputs are what the resolver reads of this invocation, with the
// gateway selector sel (the invocation's; a run's, for its runner).
func (o *Ops) hostInputs(sel gatewaysel.Selector) hostset.Inputs {
	return hostset.Inputs{Gateway: sel, Getenv: o.cfg.Getenv, Debug: o.debug}
}

// local is this host's state dir as a host, as the resolver builds it
// (hostset.NewLocal): its writes go where the resolved set routes them.
func (o *Ops) local() *backend.Local {
	return hostset.NewLocal(hostset.LocalInputs{State: o.openState, Warn: o.warn, Agent: o.cfg.Agent, Debug: o.debug,
		Now: o.cfg.Now, LockTimeout: o.cfg.LockTimeout}, o.hostSet)
}

// gatewayReader reads one host, the requester (--as) checked against that
// host's config on connecting; its warnings are the invocation's.
func (o *Ops) gatewayReader(h hostset.Host) *backend.Gateway {
	t, _ := o.hostSet() // h came from it
	g := t.Reader(h, o.cfg.Agent, o.requester())
	g.Warn, g.Now = o.warn, o.cfg.Now
	return g
}

// hosts are what an operation on one session asks, each as a whole
// (backend.Host): this host's state dir, or the gateway(s) the invocation
// selects — fleet (--context all, several contexts) when each answers
// apart. Close them.
func (o *Ops) hosts() (hosts []backend.Host, fleet bool, err error) {
	t, err := o.hostSet()
	if err != nil {
		return nil, false, err
	}
	if t.Local() {
		return []backend.Host{o.local()}, false, nil
	}
	for _, h := range t.Hosts() {
		hosts = append(hosts, o.gatewayReader(h))
	}
	return hosts, t.Fleet(), nil
}

// hostWrites is where the writes of an operation on one host go: the
// gateway the invocation names, else this host's state dir (hostset.Writes;
// several gateways are a usage error starting with what).
func (o *Ops) hostWrites(what string) (*hostset.Writes, error) {
	s := (*state.State)(nil)
	t, err := o.hostSet()
	if err != nil {
		return nil, err
	}
	if t.Local() {
		if s, err = o.openState(); err != nil {
			return nil, err
		}
	}
	return t.Writes(s, what, o.cfg.LockTimeout, o.cfg.Now)
}

// host is the one host an operation on one host works on, and where its
// writes go: this host's state dir, or the gateway the invocation names
// (several are a usage error starting with what, hostset.Set.OneHost). Close it.
func (o *Ops) host(what string) (backend.Host, *hostset.Writes, error) {
	w, err := o.hostWrites(what)
	if err != nil {
		return nil, nil, err
	}
	if w.Host != nil {
		return o.gatewayReader(*w.Host), w, nil
	}
	return o.local(), w, nil
}

// oneHost is the one host an operation works on, whole (backend.Host):
// this host's state dir, or the gateway the invocation names (several are
// a usage error starting with what, hostset.Set.OneHost). Close it.
func (o *Ops) oneHost(what string) (backend.Host, error) {
	t, err := o.hostSet()
	if err != nil {
		return nil, err
	}
	h, err := t.OneHost(what)
	if err != nil {
		return nil, err
	}
	if h != nil {
		return o.gatewayReader(*h), nil
	}
	return o.local(), nil
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

// writes is where the writes of one operation go (hostset.Writes): the
// one gateway the invocation names, else this host's state dir (s; nil: a
// named gateway only), with the invocation's lock timeout and clock.
// Several gateways are a usage error starting with what.
func (o *Ops) writes(s *state.State, what string) (*hostset.Writes, error) {
	t, err := o.hostSet()
	if err != nil {
		return nil, err
	}
	return t.Writes(s, what, o.cfg.LockTimeout, o.cfg.Now)
}

// runSetup is what a host makes a run (send, spawn) of the writes w
// ready with: w's routes, the launcher of the run (the invocation's
// environment, logger and lock timeout), and where the run is recorded
// (hostset.Writes.RunSetup).
func (o *Ops) runSetup(w *hostset.Writes) backend.RunSetup {
	return w.RunSetup(state.Options{Env: o.cfg.Env, Warn: o.warn},
		hostset.RunInputs{LockTimeout: o.cfg.LockTimeout, Launch: launch.Launcher{Getenv: o.cfg.Getenv, Log: o.cfg.Log}})
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
	t, err := o.hostSet()
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
