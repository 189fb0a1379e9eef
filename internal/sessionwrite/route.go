package sessionwrite

import (
	"context"

	"github.com/openclaw/sessions/internal/era"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/state"
)

// Gateways says where this invocation's gateways are, for Choose: the one
// it names, and how to find this host's live gateway for the state dir.
type Gateways struct {
	// Named is the gateway the invocation names (--gateway, --context,
	// $OPENCLAW_GATEWAY_URL, the current context); nil: none. Every write
	// then goes through it, whatever the local state dir holds.
	Named *gateway.Endpoint
	// Local finds this host's live gateway for the state dir with the
	// config's credentials (where it was found, for the log); an error:
	// none runs. nil: never looked for.
	Local func() (gateway.Endpoint, string, error)
	// Dial connects (default gateway.Dial with our device files).
	Dial func(ctx context.Context, o gateway.Options) (*gateway.Client, error)
	// Log gets debug lines.
	Log func(string)
}

// Route is where an agent's session writes go, and why.
type Route struct {
	Era      era.Era          // era.JSON, era.SQLite or era.Gateway
	Endpoint gateway.Endpoint // era.Gateway: the gateway
	// Named: the gateway is the one the invocation names (else this
	// host's live gateway of a 2026.8+ agent).
	Named bool
	// Why says, for era.Gateway, why the gateway was taken (for the debug
	// log); for a SQLite agent left local, why no gateway was.
	Why string
}

// Choose is the one place that decides where an agent's session writes
// go: a gateway the invocation names takes every write; else an OpenClaw
// 2026.8+ (SQLite) agent whose gateway is live on this host goes through
// that gateway (it owns the database while it runs: nothing is written to
// the database by us); else the agent's era (JSON files or the SQLite
// store, written directly). s may be nil only when a gateway is named.
func Choose(s *state.State, agent string, o Options) (Route, error) {
	g := o.Gateways
	if g != nil && g.Named != nil {
		return Route{Era: era.Gateway, Endpoint: *g.Named, Named: true, Why: "the gateway this invocation names (" + g.Named.String() + ")"}, nil
	}
	if s == nil {
		return Route{}, apperr.Statef("no state dir and no gateway: nothing to write to")
	}
	e := s.Era(agent)
	if e != era.SQLite || g == nil || g.Local == nil {
		return Route{Era: e}, nil
	}
	ep, found, err := g.Local()
	if err != nil {
		return Route{Era: e, Why: "no live gateway for the SQLite store: " + err.Error()}, nil
	}
	return Route{Era: era.Gateway, Endpoint: ep,
		Why: "agent " + agent + " is on the 2026.8+ SQLite store and its gateway is live (" + found + "): writing through the gateway, not the database"}, nil
}
