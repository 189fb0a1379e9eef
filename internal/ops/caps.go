package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
)

// Capabilities say what this invocation can do with one agent's sessions,
// and why not: what front-ends ask instead of testing an era.
type Capabilities = backend.Capabilities

// Capabilities is what this invocation can do with agent's sessions:
// through the gateway it names (one; several are a usage error), else in
// this host's state dir — the host's answer (backend.Host.Capabilities).
func (o *Ops) Capabilities(ctx context.Context, agent string) (Capabilities, error) {
	v, err := o.capabilities(ctx, agent)
	return deliver(o, v, err)
}

// capabilities is Capabilities before the agent boundary.
func (o *Ops) capabilities(ctx context.Context, agent string) (Capabilities, error) {
	h, w, err := o.where.Host(oneHostRuns)
	if err != nil {
		return Capabilities{}, err
	}
	defer h.Close()
	return h.Capabilities(ctx, agent, w.Options)
}
