package gatewayhost

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/sessionwrite"
)

// Patch finds the session over the gateway with the checks of a send and
// patches it through its sessions.patch. The label is sent as given,
// already held to the loosest rule: the gateway's own version refuses what
// it does not take (1.30's 64 code units, 9.x's 512). WaitIdle is refused
// before any connection: the gateway orders the patch with its runs.
func (g *Gateway) Patch(ctx context.Context, q backend.PatchAsk) (*backend.Patched, error) {
	t, err := g.writeSession(ctx, backend.WriteQuery{Ref: q.Ref, Label: q.Label, WaitIdle: q.WaitIdle > 0})
	if err != nil {
		return nil, err
	}
	g.debug("patch: the gateway this invocation names ("+g.Endpoint.String()+")", "gateway", g.Endpoint.URL, "auth", g.Endpoint.AuthSource)
	w := sessionwrite.OpenGateway(g.Endpoint, t.Agent, sessionwrite.Options{Now: g.Now, Gateways: &sessionwrite.Gateways{Dial: g.Dial, Log: g.Log}})
	defer w.Close()
	return backend.PatchThrough(ctx, w, q, *t, nil, g.debug)
}
