package hostset

import (
	"sync"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/backend/gatewayhost"
	"github.com/openclaw/sessions/internal/backend/local"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
)

// Resolver is where one invocation works, asked by every operation of it:
// the set of hosts resolved once (Resolve: the gateway selector,
// $OPENCLAW_GATEWAY_URL, the contexts file), and the hosts built from it —
// this host's state dir (local.Local) or the gateways it names
// (gatewayhost.Gateway), each checking the requester as that host does.
// Secrets stay inside it; never print them.
type Resolver struct {
	In    Inputs      // the invocation's gateway selector, environment, debug lines
	Local LocalInputs // what this host's state dir is opened with
	// As is who asks (--as), for a gateway to check against its config.
	As func() Requester

	once sync.Once
	set  *Set
	err  error

	stateOnce sync.Once
	open      func() (*state.State, error)
}

// State is this host's state, opened once per invocation (state.Open
// with Local.Open); its error is the operation's.
func (r *Resolver) State() (*state.State, error) {
	r.stateOnce.Do(func() { r.open = opener(r.Local.Open) })
	return r.open()
}

// RedactPatterns are this host's logging.redactPatterns (none when its
// state or config cannot be read: the defaults mask alone).
func (r *Resolver) RedactPatterns() []string {
	if st, err := r.State(); err == nil && st != nil && st.Cfg != nil {
		return st.Cfg.Logging.RedactPatterns
	}
	return nil
}

// Set is the invocation's set of hosts, resolved on first use.
func (r *Resolver) Set() (*Set, error) {
	r.once.Do(func() { r.set, r.err = Resolve(r.In) })
	return r.set, r.err
}

// For resolves the set a run's recorded gateway selector names (the
// detached runner resolves its gateway from the record, not from flags).
func (r *Resolver) For(sel gatewaysel.Selector) (*Set, error) {
	in := r.In
	in.Gateway = sel
	return Resolve(in)
}

// LocalHost is this host's state dir as a host (NewLocal): its writes go
// where the resolved set routes them.
func (r *Resolver) LocalHost() *local.Local { return NewLocal(r.Local, r.State, r.Set) }

// HostOnly is the host a host-only read asks: a gateway the command line
// names (--gateway, --context), not dialled nor even resolved — whether
// it can answer is the implementation's, the same for every gateway —
// else this host's state dir.
func (r *Resolver) HostOnly() backend.Host {
	if r.In.Gateway.Named() {
		return &gatewayhost.Gateway{}
	}
	return r.LocalHost()
}

// Gateway reads one host of the set, the requester checked against that
// host's config on connecting; its warnings are the invocation's.
func (r *Resolver) Gateway(h Host) *gatewayhost.Gateway {
	t, _ := r.Set() // h came from it
	g := t.Reader(h, r.Local.Open.Agent, r.As())
	g.Warn, g.Now = r.Local.Warn, r.Local.Now
	return g
}

// Readers is the one decision of what a read works on: this host's state
// dir (one Local reader) or the gateway(s) the invocation selects. fleet
// is true with --context all or several contexts: rows then say their
// context and a failing host is reported beside the others' rows. Close
// them.
func (r *Resolver) Readers() (readers []backend.Reader, fleet bool, err error) {
	t, err := r.Set()
	if err != nil {
		return nil, false, err
	}
	return t.Readers(r.LocalHost(), r.Local.Open.Agent, r.As()), t.Fleet(), nil
}

// Hosts are what an operation on one session asks, each as a whole
// (backend.Host): this host's state dir, or the gateway(s) the invocation
// selects — fleet when each answers apart. Close them.
func (r *Resolver) Hosts() (hosts []backend.Host, fleet bool, err error) {
	t, err := r.Set()
	if err != nil {
		return nil, false, err
	}
	if t.Local() {
		return []backend.Host{r.LocalHost()}, false, nil
	}
	for _, h := range t.Hosts() {
		hosts = append(hosts, r.Gateway(h))
	}
	return hosts, t.Fleet(), nil
}

// HostWrites is where the writes of an operation on one host go: the
// gateway the invocation names, else this host's state dir (Writes;
// several gateways are a usage error starting with what).
func (r *Resolver) HostWrites(what string) (*Writes, error) {
	s := (*state.State)(nil)
	t, err := r.Set()
	if err != nil {
		return nil, err
	}
	if t.Local() {
		if s, err = r.State(); err != nil {
			return nil, err
		}
	}
	return t.Writes(s, what, r.Local.LockTimeout, r.Local.Now)
}

// Writes is where the writes of one operation go: the one gateway the
// invocation names, else this host's state dir (s; nil: a named gateway
// only). Several gateways are a usage error starting with what.
func (r *Resolver) Writes(s *state.State, what string) (*Writes, error) {
	t, err := r.Set()
	if err != nil {
		return nil, err
	}
	return t.Writes(s, what, r.Local.LockTimeout, r.Local.Now)
}

// Host is the one host an operation on one host works on, and where its
// writes go (several are a usage error starting with what). Close it.
func (r *Resolver) Host(what string) (backend.Host, *Writes, error) {
	w, err := r.HostWrites(what)
	if err != nil {
		return nil, nil, err
	}
	if w.Host != nil {
		return r.Gateway(*w.Host), w, nil
	}
	return r.LocalHost(), w, nil
}

// OneHost is the one host an operation works on, whole (backend.Host):
// this host's state dir, or the gateway the invocation names (several are
// a usage error starting with what, Set.OneHost). Close it.
func (r *Resolver) OneHost(what string) (backend.Host, error) {
	t, err := r.Set()
	if err != nil {
		return nil, err
	}
	h, err := t.OneHost(what)
	if err != nil {
		return nil, err
	}
	if h != nil {
		return r.Gateway(*h), nil
	}
	return r.LocalHost(), nil
}

// RunSetup is what a host makes a run (send, spawn) of the writes w ready
// with: w's routes, the launcher of the run (the invocation's environment,
// log and lock timeout), and where the run is recorded.
func (r *Resolver) RunSetup(w *Writes, env state.Options, l launch.Launcher) backend.RunSetup {
	return w.RunSetup(env, RunInputs{LockTimeout: r.Local.LockTimeout, Launch: l})
}

// RunListers are where this invocation's runs are listed from, one per
// host it works on (Hosts), each asked whether it lists its own runs
// (backend.RunLister: this host's state dir does); a gateway's are the
// runs made through it, kept on this machine for it (runs.GatewayHome:
// the runs send, spawn and wait made with the same selection). fleet:
// each answers apart.
func (r *Resolver) RunListers() (listers []backend.RunLister, fleet bool, err error) {
	hosts, fleet, err := r.Hosts()
	if err != nil {
		return nil, false, err
	}
	defer func() {
		for _, h := range hosts {
			_ = h.Close()
		}
	}()
	t, _ := r.Set() // hosts came from it, a gateway's in the order of its hosts
	for i, h := range hosts {
		if rl, ok := h.(backend.RunLister); ok {
			listers = append(listers, rl)
			continue
		}
		th := t.Hosts()[i]
		listers = append(listers, &gatewayhost.RunHome{Name: th.String(), Context: th.Where(), Now: r.Local.Now,
			Open: func() (*runs.Store, error) { return t.RunStore(th) }})
	}
	return listers, fleet, nil
}

// RunStore is where this invocation's runs are recorded: the home of the
// gateway it names (the runs send and spawn made through it), else this
// host's state dir's.
func (r *Resolver) RunStore(what string) (*runs.Store, error) {
	w, err := r.Writes(nil, what)
	if err != nil {
		return nil, err
	}
	if w.Host != nil {
		t, _ := r.Set()
		return t.RunStore(*w.Host)
	}
	s, err := r.State()
	if err != nil {
		return nil, err
	}
	return runs.Open(s.Dir.Path), nil
}
