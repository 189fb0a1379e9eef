package ops

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/era"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// ProbeTimeout bounds the handshake that checks a local gateway accepts
// the config's credentials (auto engine, write routing).
var ProbeTimeout = 3 * time.Second

// endpoints resolves the gateways this invocation selects (--gateway,
// --context, $OPENCLAW_GATEWAY_URL, the current context; gateway.Resolve).
// An empty list: work on the local state dir. Secrets stay inside the
// endpoints; never print them.
func (o *Ops) endpoints() ([]gateway.Endpoint, error) {
	in := gateway.Inputs{
		GatewayURL:  o.cfg.Gateway,
		TokenFile:   o.cfg.GatewayTokenFile,
		Insecure:    o.cfg.InsecureGateway,
		Fingerprint: o.cfg.GatewayFingerprint,
		Contexts:    o.cfg.Contexts,
		Getenv:      o.cfg.Getenv,
	}
	path, err := gateway.ContextsPath()
	if err == nil {
		if in.Store, err = gateway.LoadContexts(path); err != nil {
			return nil, err
		}
	} else if len(o.cfg.Contexts) > 0 {
		return nil, err
	}
	return gateway.Resolve(in)
}

// allContexts: --context all was given.
func (o *Ops) allContexts() bool {
	return slices.ContainsFunc(o.cfg.Contexts, func(c string) bool { return strings.EqualFold(strings.TrimSpace(c), "all") })
}

// scope is the one decision of what a read works on: the local state dir
// (one Local reader) or the gateway(s) the invocation selects. fleet is
// true with --context all or several contexts: rows then say their context
// and a failing host is reported beside the others' rows. Close them.
func (o *Ops) scope() (readers []backend.Reader, fleet bool, err error) {
	eps, err := o.endpoints()
	if err != nil {
		return nil, false, err
	}
	if len(eps) == 0 {
		return []backend.Reader{o.local()}, false, nil
	}
	for _, ep := range eps {
		readers = append(readers, o.gatewayReader(ep))
	}
	return readers, len(eps) > 1 || o.allContexts(), nil
}

func (o *Ops) local() *backend.Local {
	return &backend.Local{State: o.openState, Warn: o.warn, Agent: o.cfg.Agent, Debug: o.debug}
}

// gatewayReader reads one gateway, the requester (--as) checked against
// that host's config on connecting.
func (o *Ops) gatewayReader(ep gateway.Endpoint) *backend.Gateway {
	g := &backend.Gateway{Endpoint: ep, Agent: o.cfg.Agent, Log: func(m string) { o.debug(m) }}
	g.As = func(ctx context.Context, c *gateway.Client) (*state.Access, error) {
		return o.asOverGateway(ctx, c, g.Where())
	}
	return g
}

func closeAll(rs []backend.Reader) {
	for _, r := range rs {
		_ = r.Close()
	}
}

// asOverGateway is what --as (or $OPENCLAW_SESSION_KEY, with --sandboxed
// and --agent) means on the gateway c is connected to (where names it in
// messages): the requester and that host's agent-to-agent and sandbox
// policy, read from its config with config.get and checked exactly as the
// local config is checked locally (backend.GatewayAccess). nil, nil
// without a requester: the operator the credentials stand for. Exit 3
// when the credentials lack the scope config.get needs (operator.admin on
// 2026.1.30, operator.read on 2026.9.x), exit 4 when the requester is no
// session there. Every operation through a gateway calls it, once per
// connection (fleet: per host).
func (o *Ops) asOverGateway(ctx context.Context, c *gateway.Client, where string) (*state.Access, error) {
	as, from := o.as()
	if strings.TrimSpace(as) == "" {
		return nil, nil
	}
	acc, err := backend.GatewayAccess(ctx, c, where, backend.AsInput{As: as, From: from, Agent: o.cfg.Agent, Sandboxed: o.sandboxed()})
	if err == nil {
		o.debug("requester over the gateway, checked against its config (config.get)", "gateway", where, "as", acc.Req.Key, "agent", acc.Req.Agent, "sandboxed", acc.Req.Sandboxed, "restricted", acc.Req.Restrict)
	}
	return acc, err
}

// writeOptions are the sessionwrite options of this invocation: the lock
// timeout, the clock and its gateways (sessionwrite.Choose): the one it
// names, and this host's live gateway for s (nil s: a named gateway only).
// Several gateways are a usage error: send, spawn and wait work on one host.
func (o *Ops) writeOptions(s *state.State) (sessionwrite.Options, error) {
	wo := sessionwrite.Options{LockTimeout: o.cfg.LockTimeout, Now: o.cfg.Now}
	named, err := o.oneHost("send, spawn and wait work on one host: give one --context (or --gateway URL), not %d contexts")
	if err != nil {
		return wo, err
	}
	g := &sessionwrite.Gateways{Log: func(m string) { o.debug(m) }}
	switch {
	case named != nil:
		g.Named = named
	case s != nil:
		g.Local = func() (gateway.Endpoint, string, error) {
			ep, live, err := o.localGateway(s)
			return ep, live.Describe(), err
		}
	}
	wo.Gateways = g
	return wo, nil
}

// oneHost is the one-host rule of every write: the one gateway the
// invocation names (nil: none, work on this host's state dir); several,
// or --context all, are a usage error (refusal: its message, given the
// number of gateways).
func (o *Ops) oneHost(refusal string) (*gateway.Endpoint, error) {
	eps, err := o.endpoints()
	if err != nil {
		return nil, err
	}
	switch {
	case len(eps) > 1 || o.allContexts():
		return nil, apperr.Usagef(refusal, len(eps))
	case len(eps) == 1:
		return &eps[0], nil
	}
	return nil, nil
}

// writeRoute is the one decision of where agent's session writes go for
// this invocation (sessionwrite.Choose), said at debug level when it is a
// gateway.
func (o *Ops) writeRoute(s *state.State, agent, what string) (sessionwrite.Route, sessionwrite.Options, error) {
	wo, err := o.writeOptions(s)
	if err != nil {
		return sessionwrite.Route{}, wo, err
	}
	r, err := sessionwrite.Choose(s, agent, wo)
	if err != nil {
		return r, wo, err
	}
	switch {
	case r.Era == era.Gateway:
		o.debug(what+": "+r.Why, "gateway", r.Endpoint.URL, "auth", r.Endpoint.AuthSource)
	case r.Why != "":
		o.debug(what+": "+r.Why+"; writing locally", "agent", agent)
	}
	return r, wo, nil
}

// namedGateway is the one gateway this invocation names for a write
// (--gateway, --context, $OPENCLAW_GATEWAY_URL, the current context), or
// nil: work on the local state dir. Several are a usage error.
func (o *Ops) namedGateway() (*gateway.Endpoint, error) {
	wo, err := o.writeOptions(nil)
	if err != nil {
		return nil, err
	}
	return wo.Gateways.Named, nil
}

// localGateway is this host's live gateway for the state dir, with the
// config's credentials (gateway.FindLocal); exit 10 when none runs.
func (o *Ops) localGateway(s *state.State) (gateway.Endpoint, *gateway.LiveGateway, error) {
	cfgPath := ""
	if s.Cfg.Exists {
		cfgPath = s.Cfg.Path
	}
	return gateway.FindLocal(gateway.LocalInput{
		StateDir: s.Dir.Path, ConfigPath: cfgPath, Config: s.Cfg.Raw,
		Getenv: o.cfg.Getenv, TokenFile: o.cfg.GatewayTokenFile,
	})
}

// turnGateway is the gateway a `gateway` engine turn runs in: the one
// endpoint the invocation names, else this host's live gateway. Several
// contexts are a usage error: a turn runs on one host.
func (o *Ops) turnGateway(s *state.State) (gateway.Endpoint, error) {
	eps, err := o.endpoints()
	if err != nil {
		return gateway.Endpoint{}, err
	}
	switch len(eps) {
	case 0:
		ep, live, err := o.localGateway(s)
		if err != nil {
			return gateway.Endpoint{}, err
		}
		o.debug("gateway engine: this host's gateway", "url", ep.URL, "auth", ep.AuthSource, "found", live.Describe())
		return ep, nil
	case 1:
		return eps[0], nil
	}
	return gateway.Endpoint{}, apperr.Usagef("the gateway engine runs a turn in one gateway; %d contexts were given", len(eps))
}

// probeLocalGateway: a live local gateway that accepts the config's
// credentials (the handshake), or why not — the auto engine's gateway test.
func (o *Ops) probeLocalGateway(s *state.State) (string, error) {
	ep, live, err := o.localGateway(s)
	if err != nil {
		return "", err
	}
	if ep.Token == "" && ep.Password == "" {
		return "", apperr.Statef("a gateway runs (%s) but the config has no credentials for it (gateway.auth.token/password): skipped", live.Describe())
	}
	if err := gateway.Probe(context.Background(), ep, ProbeTimeout); err != nil {
		return "", apperr.Statef("a gateway runs (%s) but did not accept the config's credentials at %s: %v", live.Describe(), ep.URL, err)
	}
	return ep.URL + " (" + live.Describe() + ")", nil
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
	eps, err := o.endpoints()
	if err != nil {
		return Scope{}, err
	}
	var sc Scope
	for _, ep := range eps {
		sc.Gateways = append(sc.Gateways, ep.URL)
		sc.Contexts = append(sc.Contexts, ep.Context)
	}
	sc.Fleet = len(eps) > 1 || o.allContexts()
	return sc, nil
}
