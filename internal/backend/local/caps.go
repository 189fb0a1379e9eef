package local

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// Capabilities of agent on this host's state dir (wo: the invocation's
// write options, whose live-gateway lookup the target does once).
func (l *Local) Capabilities(_ context.Context, agent string, wo sessionwrite.Options) (backend.Capabilities, error) {
	s, err := l.State()
	if err != nil {
		return backend.Capabilities{}, err
	}
	return localCaps(s, wo).of(agent), nil
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
func (c *localCaper) of(agent string) backend.Capabilities {
	s := c.s
	e := s.Era(agent)
	caps := backend.Capabilities{Era: e.String(), Readable: s.CanSeeAgent(agent, policy.OpHistory) == ""}
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
