package hostset

import (
	"context"
	"strings"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/backend/gatewayhost"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/state"
)

// Requester is who asks, as the invocation says it (--as or
// $OPENCLAW_SESSION_KEY, --agent, --sandboxed): over a gateway it is
// checked against that host's config on connecting.
type Requester = gatewayhost.AsInput

// Reader reads one host; agent is --agent, as the requester (checked
// against that host's config on connecting; no As: the operator the
// credentials stand for). Close it.
func (t *Set) Reader(h Host, agent string, as Requester) *gatewayhost.Gateway {
	g := &gatewayhost.Gateway{Endpoint: h.ep, Agent: agent, Log: func(m string) { t.in.Debug(m) }, Debug: t.in.Debug}
	if strings.TrimSpace(as.As) != "" {
		g.As = func(ctx context.Context, c *gateway.Client) (*state.Access, error) {
			acc, err := gatewayhost.Access(ctx, c, g.Where(), as)
			if err == nil {
				t.in.Debug("requester over the gateway, checked against its config (config.get)", "gateway", g.Where(), "as", acc.Req.Key, "agent", acc.Req.Agent, "sandboxed", acc.Req.Sandboxed, "restricted", acc.Req.Restrict)
			}
			return acc, err
		}
	}
	return g
}

// Readers are what a read works on: local (this host's state dir) when
// the set is it, else one reader per host. Close them.
func (t *Set) Readers(local backend.Reader, agent string, as Requester) []backend.Reader {
	if t.Local() {
		return []backend.Reader{local}
	}
	rs := make([]backend.Reader, 0, len(t.hosts))
	for _, h := range t.hosts {
		rs = append(rs, t.Reader(h, agent, as))
	}
	return rs
}
