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
// gateway the invocation names is a host of its own (gatewayhost.Gateway),
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

// Route is where an agent's session writes go, and why: written here,
// to the agent's store of Era, or through a gateway (Gateway), which
// writes its own store. A gateway is a transport, not an era.
type Route struct {
	// Era is the era of the agent's store on this host (era.JSON,
	// era.SQLite): what is written when Gateway is nil. Through this
	// host's live gateway it is the store that gateway holds (era.SQLite);
	// through a gateway the invocation names it is "": that store is the
	// other host's.
	Era era.Era
	// Gateway is the gateway the writes go through (nil: written here).
	Gateway *gateway.Endpoint
	// Named: the gateway is the one the invocation names (GatewayRoute;
	// else this host's live gateway of a 2026.8+ agent, Choose).
	Named bool
	// Why says, through a gateway, why the gateway was taken (for the
	// debug log); for a SQLite agent left local, why no gateway was.
	Why string
}

// ThroughGateway reports whether the writes go through a gateway (its
// RPC) rather than to a store here.
func (r Route) ThroughGateway() bool { return r.Gateway != nil }

// Direct reports whether the writes go straight to a store of era e here.
func (r Route) Direct(e era.Era) bool { return r.Gateway == nil && r.Era == e }

// Via names how the writes are made, as the debug log says it: the era of
// the store written here, or "gateway".
func (r Route) Via() string {
	if r.ThroughGateway() {
		return "gateway"
	}
	return r.Era.String()
}

// LabelMax is the longest label (UTF-16 code units) a write of this
// route accepts: the store's (LabelMax), or through a gateway
// GatewayLabelMax.
func (r Route) LabelMax() int {
	if r.ThroughGateway() {
		return GatewayLabelMax
	}
	return LabelMax(r.Era)
}

// ParseLabel validates a label for a write of this route (ParseLabel's
// rule, held to LabelMax).
func (r Route) ParseLabel(raw string) (string, error) { return parseLabel(r.LabelMax(), raw) }

// GatewayRoute is the route of every write of a gateway the invocation
// names (a gateway host: gatewayhost.Gateway, and the runner of a run made
// through it): its own RPC, whatever any local state dir holds.
func GatewayRoute(ep gateway.Endpoint) Route {
	return Route{Gateway: &ep, Named: true, Why: "the gateway this invocation names (" + ep.String() + ")"}
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
	return Route{Era: e, Gateway: &ep,
		Why: "agent " + agent + " is on the 2026.8+ SQLite store and its gateway is live (" + found + "): writing through the gateway, not the database"}, nil
}
