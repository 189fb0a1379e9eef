package backend

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// Capabilities say what this invocation can do with one agent's sessions,
// and why not: what front-ends ask instead of testing an era.
type Capabilities struct {
	// Era is where the agent's sessions live, as documents spell it: the
	// era of this host's store ("json", "sqlite" for OpenClaw 2026.8+,
	// "none" for no store yet), or "gateway" (hostedByGateway) when the
	// invocation works through a gateway it names, whose store is that
	// host's.
	Era string
	// Readable: the requester may read the agent's sessions (the
	// agent-to-agent and sandbox policy).
	Readable bool
	// Writable: send, spawn and patch can write the agent's sessions;
	// WhyNot says why not otherwise (e.g. an OpenClaw process holds the
	// 2026.8+ store and no gateway of it is live here).
	Writable bool
	WhyNot   string
	// WritesThrough is the URL of the gateway writes are routed through
	// (the one the invocation names, or this host's live gateway of a
	// 2026.8+ agent); "": they are written to the store directly.
	WritesThrough string
	// LabelMax is the longest label a write accepts (UTF-16 code units):
	// 64 as OpenClaw 2026.1.30 checks, 512 on a 2026.8+ store written
	// here, and through a gateway sessionwrite.GatewayLabelMax (the route's
	// Route.LabelMax).
	LabelMax int
	// TurnsInOpenClaw: a turn (send, spawn) runs in OpenClaw itself,
	// through the gateway, not in a local engine.
	TurnsInOpenClaw bool
}

// Capabilities of agent on this host's state dir (wo: the invocation's
// write options, whose live-gateway lookup the target does once).
func (l *Local) Capabilities(_ context.Context, agent string, wo sessionwrite.Options) (Capabilities, error) {
	s, err := l.State()
	if err != nil {
		return Capabilities{}, err
	}
	return localCaps(s, wo).of(agent), nil
}

// Capabilities of agent on this gateway: every agent is written through
// it, readable as the requester's check on that host says.
func (g *Gateway) Capabilities(ctx context.Context, agent string, _ sessionwrite.Options) (Capabilities, error) {
	c, err := g.Client(ctx)
	if err != nil {
		return Capabilities{}, err
	}
	acc, err := g.Access(ctx, c)
	if err != nil {
		return Capabilities{}, err
	}
	return gatewayCaps(g.Endpoint.URL, acc == nil || acc.CanSeeAgent(agent, policy.OpHistory) == ""), nil
}

// hostedByGateway is what a document says of where the sessions of a
// gateway host live (its "era" field): that host's store, whatever its
// era, reached through the gateway's RPC. It is no era of a store here: a
// gateway is a transport.
const hostedByGateway = "gateway"

// gatewayCaps are an agent's capabilities on a gateway at url: every
// agent is written through it, and its turns run there.
func gatewayCaps(url string, readable bool) Capabilities {
	return Capabilities{Era: hostedByGateway, Readable: readable, Writable: true, WritesThrough: url,
		LabelMax: sessionwrite.GatewayLabelMax, TurnsInOpenClaw: true}
}

// localCaper tells the capabilities of the agents of this host's state
// dir (the target looks for its live gateway once, when a 2026.8+ agent
// needs it).
type localCaper struct {
	s  *state.State
	wo sessionwrite.Options
	// routes: the live gateway may take writes (the target may look).
	routes bool
}

func localCaps(s *state.State, wo sessionwrite.Options) *localCaper {
	c := &localCaper{s: s}
	if wo.Gateways == nil || wo.Gateways.Local == nil {
		return c
	}
	c.wo, c.routes = wo, true
	return c
}

// of is agent's capabilities: where send, spawn and patch would write
// (sessionwrite.Choose: a 2026.8+ agent whose gateway is live here goes
// through it), and whether its store takes writes.
func (c *localCaper) of(agent string) Capabilities {
	s := c.s
	e := s.Era(agent)
	caps := Capabilities{Era: e.String(), Readable: s.CanSeeAgent(agent, policy.OpHistory) == ""}
	route := sessionwrite.Route{Era: e}
	if c.routes && e == era.SQLite {
		if r, err := sessionwrite.Choose(s, agent, c.wo); err == nil && r.ThroughGateway() {
			route = r
			caps.WritesThrough = r.Gateway.URL
		}
	}
	werr := sessionwrite.CheckWritable(s, agent)
	caps.Writable = werr == nil || route.ThroughGateway()
	if !caps.Writable {
		caps.WhyNot = whyNotWritable(s, agent, e, werr)
	}
	caps.TurnsInOpenClaw = route.ThroughGateway()
	caps.LabelMax = route.LabelMax()
	return caps
}

// whyNotWritable is the reason an agent cannot be written: an OpenClaw
// process holding the state dir of a 2026.8+ (SQLite) agent (the gateway
// is the way), else the refusal itself.
func whyNotWritable(s *state.State, id string, e era.Era, err error) string {
	if e == era.SQLite {
		if hs, herr := sessionwrite.Holders(s, id, time.Now()); herr == nil && len(hs) > 0 {
			pids := make([]string, 0, len(hs))
			for _, h := range hs {
				if h.PID > 0 {
					pids = append(pids, strconv.Itoa(h.PID))
				}
			}
			who := "OpenClaw is running"
			if len(pids) > 0 {
				who += " (pid " + strings.Join(pids, ", ") + ")"
			}
			return who + " and no gateway of it is live here: write through its gateway (--gateway URL)"
		}
	}
	msg := err.Error()
	if i := strings.IndexAny(msg, ":;"); i > 0 && len(msg) > 120 {
		msg = msg[:i]
	}
	return "not writable: " + msg
}
