// Package ops is the operations layer: the one API that every front-end —
// the CLI, the MCP server, the terminal UI — calls to list, read, search,
// send into, spawn, patch and clean up sessions.
//
// A front-end says who is asking and what to work on (Config: the global
// flags and the environment); ops decides where the sessions live — this
// host's state dir, each agent's store in its era (sessions.json or the
// 2026.8+ SQLite store), a live gateway that must take the writes of a
// 2026.8+ agent, or one or more named gateways — and runs the operation
// there. Front-ends never see stores, transports or eras: they get result
// documents (the JSON the CLI prints) and typed errors (internal/apperr,
// whose codes are the exit codes), and they may ask what an agent's
// sessions can do (Capabilities) instead of testing an era.
//
// Where sessions live is decided once per Ops by internal/hostset (the
// gateway flags, the environment, the contexts file; the one-host rule;
// this host's live gateway, looked for once): where.go asks it for the
// readers of a read (the state dir, one gateway or a fleet) and for the
// host of an operation on one host (backend.Host: this host's state dir or
// the gateway the invocation names, each implementing show, patch, the
// lifecycle writes, a send's plan and a spawn whole, each writing where
// that host writes). An operation
// composes what the host answers and checks policy; it does not branch per
// transport. Scope tells a front-end what it works on.
package ops

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/boundary"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/hostset"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/storecache"
)

// Config is what a front-end knows about one invocation: the global flags
// and the environment. The zero value works on the default state dir as
// the host operator.
type Config struct {
	StateDir   string // --state-dir
	ConfigPath string // --config
	Profile    string // --profile
	Agent      string // --agent
	// As is the requester's session key (--as); empty: $OPENCLAW_SESSION_KEY,
	// else the host operator.
	As string
	// Sandboxed: the requester runs sandboxed (--sandboxed, or
	// $OPENCLAW_SANDBOXED true).
	Sandboxed bool
	// Redact: mask credentials in transcript text as OpenClaw's
	// sessions_history does, even for the operator (--redact; the MCP
	// server sets it). A requester (As, $OPENCLAW_SESSION_KEY) always gets
	// masked text.
	Redact      bool
	LockTimeout time.Duration // --lock-timeout (0: the default)

	// Gateway is the gateway selector: --gateway URL, --gateway-token-file,
	// --insecure-gateway, --gateway-fingerprint, --context NAME
	// (repeatable, or all), as one value. With none of them (and no
	// $OPENCLAW_GATEWAY_URL or current context) ops works on this host's
	// state dir.
	Gateway gatewaysel.Selector

	// Env is the environment state and config resolution read (zero: the
	// process's own).
	Env    config.Env
	Getenv func(string) string
	Now    func() time.Time
	// Log gets warnings (shown) and debug lines (--log-level debug).
	Log *log.Logger

	// Cache keeps the parsed stores of this host's state dir across the
	// Ops of one process, each checked again on every use (a server's
	// calls: NewStoreCache); nil reads every store afresh (the CLI).
	Cache *StoreCache
}

// StoreCache is the parsed stores one process keeps across its Ops (see
// Config.Cache): served again only while the files they were read from
// are unchanged, which every call checks again.
type StoreCache = storecache.Cache

// NewStoreCache returns an empty store cache.
func NewStoreCache() *StoreCache { return storecache.New() }

// Ops runs operations for one invocation. It opens what it needs on first
// use and keeps it: build one per invocation (the CLI) or per request
// context (a server).
type Ops struct {
	cfg Config

	where *hostset.Resolver // where this invocation works, resolved once

	redactOnce sync.Once
	masker     *boundary.Masker
}

// New prepares the operations of one invocation; nothing is opened yet.
func New(c Config) *Ops {
	if c.Getenv == nil {
		c.Getenv = func(string) string { return "" }
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = log.New(nopWriter{})
	}
	o := &Ops{cfg: c}
	o.where = &hostset.Resolver{In: hostset.Inputs{Gateway: c.Gateway, Getenv: c.Getenv, Debug: o.debug},
		Local: hostset.LocalInputs{Open: o.stateOptions(), Warn: o.warn, Debug: o.debug, Now: c.Now, LockTimeout: c.LockTimeout},
		As:    o.requester}
	return o
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// Config is the invocation's configuration, as given.
func (o *Ops) Config() Config { return o.cfg }

// Now is the invocation's clock.
func (o *Ops) Now() time.Time { return o.cfg.Now() }

// Getenv reads the invocation's environment.
func (o *Ops) Getenv(k string) string { return o.cfg.Getenv(k) }

func (o *Ops) warn(msg string) { o.cfg.Log.Warn(msg) }

func (o *Ops) debug(msg string, kv ...any) { o.cfg.Log.Debug(msg, kv...) }

// as is the requester's key as given (--as, else $OPENCLAW_SESSION_KEY)
// and where it came from; "" for the host operator.
func (o *Ops) as() (key, from string) {
	if o.cfg.As != "" {
		return o.cfg.As, "--as"
	}
	if v := strings.TrimSpace(o.cfg.Getenv("OPENCLAW_SESSION_KEY")); v != "" {
		return v, "$OPENCLAW_SESSION_KEY"
	}
	return "", ""
}

// stateOptions are what this host's state is opened with (hostset opens
// it, once, when an operation needs it): the requester as given, which
// the state checks.
func (o *Ops) stateOptions() state.Options {
	as := o.cfg.As
	if as == "" {
		as = o.cfg.Getenv("OPENCLAW_SESSION_KEY")
	}
	return state.Options{StateDir: o.cfg.StateDir, ConfigPath: o.cfg.ConfigPath, Profile: o.cfg.Profile,
		Agent: o.cfg.Agent, As: as, Sandboxed: o.sandboxed(), Env: o.cfg.Env, Warn: o.warn, Cache: o.cfg.Cache}
}

// sandboxed is Config.Sandboxed or $OPENCLAW_SANDBOXED (true).
func (o *Ops) sandboxed() bool {
	if o.cfg.Sandboxed {
		return true
	}
	b, err := strconv.ParseBool(strings.TrimSpace(o.cfg.Getenv("OPENCLAW_SANDBOXED")))
	return err == nil && b
}
