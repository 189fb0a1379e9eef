// Package hostset resolves, once per invocation, the set of hosts its
// sessions live on: this host's state dir, one OpenClaw gateway, or a
// fleet of them — and, for this host's state dir, whether a 2026.8+
// agent's writes must go through its live gateway. It is the one place
// that reads the gateway flags, $OPENCLAW_GATEWAY_URL and the contexts
// file, applies the one-host rule of writes and the refusals of --context
// all, and looks for (and probes) this host's live gateway.
//
// The name says what it answers: a set of hosts (rclone's fs.NewFs turns
// a remote's name into a backend as this turns flags into backend.Host
// values). It was internal/target, but "target" already means the session
// an operation acts on (state.Target, a run record's Target), and a folder
// named target/ is skipped by common tooling as build output.
//
// Resolve builds a Set from what the invocation says; the operations
// layer asks it for hosts and readers (List, history, show, follow), for
// the write options of this host's state dir (LocalWrites), for the
// gateway a gateway-engine turn runs in, and for where the run records of
// a gateway are kept. The storage era (JSON, SQLite) stays the store's: a
// gateway is a transport, chosen here; an era is read from the state dir
// by state.
package hostset

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend/gatewayhost"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/state"
)

// ProbeTimeout bounds the handshake that checks a local gateway accepts
// the config's credentials (the auto engine's gateway test).
var ProbeTimeout = 3 * time.Second

// Inputs is what an invocation says about where it works: the gateway
// flags, the environment, and where debug lines go.
type Inputs struct {
	// Gateway is what the invocation names (--gateway URL, its token
	// file, --insecure-gateway, --gateway-fingerprint, --context), as one
	// value: it goes on whole to gateway.Resolve and, for a gateway-engine
	// run, into the run record its runner reads.
	Gateway gatewaysel.Selector
	Getenv  func(string) string
	// Debug gets the decisions, at debug level (nil: dropped).
	Debug func(msg string, kv ...any)
}

// Set is the hosts one invocation works on, resolved once (Resolve).
// Its zero hosts mean this host's state dir.
type Set struct {
	in    Inputs
	hosts []Host
	fleet bool

	mu   sync.Mutex
	live map[string]*liveGateway // per state dir: its live gateway, looked for once
}

// Host is one gateway the invocation names.
type Host struct {
	ep gateway.Endpoint
}

// Where names the host in messages and in a fleet's rows: its context,
// else its URL.
func (h Host) Where() string { return gatewayhost.WhereOf(h.ep) }

// URL is the gateway's URL.
func (h Host) URL() string { return h.ep.URL }

// Context is the context that names it ("" for a gateway given by URL).
func (h Host) Context() string { return h.ep.Context }

// String names the gateway without secrets.
func (h Host) String() string { return h.ep.String() }

// Endpoint is the gateway's endpoint, credentials included: for the
// implementations behind the seams (backend, sessionwrite, launch), never
// for printing.
func (h Host) Endpoint() gateway.Endpoint { return h.ep }

// HostOf wraps an endpoint found elsewhere (a run record's gateway).
func HostOf(ep gateway.Endpoint) Host { return Host{ep: ep} }

// Resolve reads the gateway flags, $OPENCLAW_GATEWAY_URL, the contexts
// file and the current context (gateway.Resolve): no host is this host's
// state dir. Exit 2 for contradicting flags, exit 4 for an unknown context.
func Resolve(in Inputs) (*Set, error) {
	if in.Getenv == nil {
		in.Getenv = func(string) string { return "" }
	}
	if in.Debug == nil {
		in.Debug = func(string, ...any) {}
	}
	gi := gateway.Inputs{Selector: in.Gateway, Getenv: in.Getenv}
	path, err := gateway.ContextsPath()
	if err == nil {
		if gi.Store, err = gateway.LoadContexts(path); err != nil {
			return nil, err
		}
	} else if len(in.Gateway.Contexts) > 0 {
		return nil, err
	}
	eps, err := gateway.Resolve(gi)
	if err != nil {
		return nil, err
	}
	t := &Set{in: in, live: map[string]*liveGateway{}}
	for _, ep := range eps {
		t.hosts = append(t.hosts, Host{ep: ep})
	}
	all := slices.ContainsFunc(in.Gateway.Contexts, func(c string) bool { return strings.EqualFold(strings.TrimSpace(c), "all") })
	t.fleet = len(eps) > 1 || all
	return t, nil
}

// Local reports whether the invocation works on this host's state dir.
func (t *Set) Local() bool { return len(t.hosts) == 0 }

// Fleet: several hosts (--context all, several contexts): answers carry
// each row's context and each failing host apart.
func (t *Set) Fleet() bool { return t.fleet }

// Hosts are the gateways the invocation names, in the order given (none:
// this host's state dir).
func (t *Set) Hosts() []Host { return slices.Clone(t.hosts) }

// OneHost is the one-host rule of every write and of every operation on
// one session: the one gateway the invocation names (nil: none, work on
// this host's state dir). Several, or --context all, are a usage error
// that starts with what (e.g. "patch changes one session on one host").
func (t *Set) OneHost(what string) (*Host, error) {
	switch {
	case t.fleet:
		return nil, apperr.Usagef("%s: give one --context (or --gateway URL), not %s", what, t.describe())
	case len(t.hosts) == 1:
		h := t.hosts[0]
		return &h, nil
	}
	return nil, nil
}

// describe says what a fleet invocation selected: "--context all" or the
// number of contexts.
func (t *Set) describe() string {
	for _, c := range t.in.Gateway.Contexts {
		if strings.EqualFold(strings.TrimSpace(c), "all") {
			return "--context all"
		}
	}
	return fmt.Sprintf("%d contexts", len(t.hosts))
}

// liveGateway is this host's live gateway for one state dir, looked for
// once.
type liveGateway struct {
	once  sync.Once
	ep    gateway.Endpoint
	found string
	err   error
}

// LiveGateway is this host's live gateway for s's state dir, with the
// config's credentials (gateway.FindLocal), and where it was found; exit
// 10 when none runs. It is looked for once per Set and state dir.
func (t *Set) LiveGateway(s *state.State) (gateway.Endpoint, string, error) {
	t.mu.Lock()
	lg := t.live[s.Dir.Path]
	if lg == nil {
		lg = &liveGateway{}
		t.live[s.Dir.Path] = lg
	}
	t.mu.Unlock()
	lg.once.Do(func() {
		cfgPath := ""
		if s.Cfg.Exists {
			cfgPath = s.Cfg.Path
		}
		ep, live, err := gateway.FindLocal(gateway.LocalInput{
			StateDir: s.Dir.Path, ConfigPath: cfgPath, Config: s.Cfg.Raw,
			Getenv: t.in.Getenv, TokenFile: t.in.Gateway.TokenFile,
		})
		if err != nil {
			t.in.Debug("no live gateway holds the state dir: its 2026.8+ agents are written directly", "stateDir", s.Dir.Path, "reason", err.Error())
			lg.err = err
			return
		}
		lg.ep, lg.found = ep, live.Describe()
		t.in.Debug("a live OpenClaw gateway holds the state dir: going through it for its 2026.8+ agents", "found", lg.found, "gateway", ep.String(), "auth", ep.AuthSource)
	})
	return lg.ep, lg.found, lg.err
}

// TurnGateway is the gateway a `gateway` engine turn runs in: the one
// the invocation names, else this host's live gateway for s. Several
// contexts are a usage error: a turn runs on one host.
func (t *Set) TurnGateway(s *state.State) (gateway.Endpoint, error) {
	h, err := t.OneHost("the gateway engine runs a turn in one gateway")
	if err != nil {
		return gateway.Endpoint{}, err
	}
	if h != nil {
		return h.ep, nil
	}
	ep, found, err := t.LiveGateway(s)
	if err != nil {
		return gateway.Endpoint{}, err
	}
	t.in.Debug("gateway engine: this host's gateway", "url", ep.URL, "auth", ep.AuthSource, "found", found)
	return ep, nil
}

// ProbeLive: this host's live gateway for s, when it accepts the config's
// credentials (the handshake), or why not — the auto engine's gateway
// test.
func (t *Set) ProbeLive(s *state.State) (string, error) {
	ep, found, err := t.LiveGateway(s)
	if err != nil {
		return "", err
	}
	if ep.Token == "" && ep.Password == "" {
		return "", apperr.Statef("a gateway runs (%s) but the config has no credentials for it (gateway.auth.token/password): skipped", found)
	}
	if err := gateway.Probe(context.Background(), ep, ProbeTimeout); err != nil {
		return "", apperr.Statef("a gateway runs (%s) but did not accept the config's credentials at %s: %v", found, ep.URL, err)
	}
	return ep.URL + " (" + found + ")", nil
}

// TurnGatewayOf is TurnGateway for s, as the runner asks for it (once a
// gateway-engine turn starts).
func (t *Set) TurnGatewayOf(s *state.State) func() (gateway.Endpoint, error) {
	return func() (gateway.Endpoint, error) { return t.TurnGateway(s) }
}
