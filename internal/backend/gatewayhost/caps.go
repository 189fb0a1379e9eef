package gatewayhost

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
)

// Capabilities of agent on this gateway: every agent is written through
// it, readable as the requester's check on that host says.
func (g *Gateway) Capabilities(ctx context.Context, agent string, _ sessionwrite.Options) (backend.Capabilities, error) {
	c, err := g.Client(ctx)
	if err != nil {
		return backend.Capabilities{}, err
	}
	acc, err := g.Access(ctx, c)
	if err != nil {
		return backend.Capabilities{}, err
	}
	return gatewayCaps(g.Endpoint.URL, acc == nil || acc.CanSeeAgent(agent, policy.OpHistory) == ""), nil
}

// gatewayCaps are an agent's capabilities on a gateway at url: every
// agent is written through it, and its turns run there.
func gatewayCaps(url string, readable bool) backend.Capabilities {
	return backend.Capabilities{Era: backend.HostedByGateway, Readable: readable, Writable: true, WritesThrough: url,
		LabelMax: sessionwrite.GatewayLabelMax, TurnsInOpenClaw: true}
}
