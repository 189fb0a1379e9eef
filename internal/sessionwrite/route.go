package sessionwrite

import (
	"context"

	"github.com/openclaw/sessions/internal/era"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/state"
)

// Gateways says how this host's writes reach a gateway, for Choose: how
// to find this host's live gateway for the state dir, and how to dial. A
// gateway the invocation names is a host of its own (backend.Gateway),
// which writes through itself (GatewayRoute): it is not chosen here.
type Gateways struct {
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
	// Named: the gateway is the one the invocation names (GatewayRoute;
	// else this host's live gateway of a 2026.8+ agent, Choose).
	Named bool
	// Why says, for era.Gateway, why the gateway was taken (for the debug
	// log); for a SQLite agent left local, why no gateway was.
	Why string
}

// GatewayRoute is the route of every write of a gateway the invocation
// names (a gateway host: backend.Gateway, and the runner of a run made
// through it): its own RPC, whatever any local state dir holds.
func GatewayRoute(ep gateway.Endpoint) Route {
	return Route{Era: era.Gateway, Endpoint: ep, Named: true, Why: "the gateway this invocation names (" + ep.String() + ")"}
}

// Choose is the one place that decides where an agent's session writes
// go on this host's state dir s: an OpenClaw 2026.8+ (SQLite) agent whose
// gateway is live on this host goes through that gateway (it owns the
// database while it runs: nothing is written to the database by us); else
// the agent's era (JSON files or the SQLite store, written directly).
func Choose(s *state.State, agent string, o Options) (Route, error) {
	g := o.Gateways
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
