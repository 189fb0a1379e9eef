package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostdoc"
	"github.com/openclaw/sessions/internal/sessionwrite"
)

// The rows of `sessions agents` (internal/hostdoc).
type (
	AgentRow        = hostdoc.AgentRow        // one agent
	AgentsRequester = hostdoc.AgentsRequester // who asked
)

// AgentsResult is the document of `sessions agents`.
type AgentsResult struct {
	Requester    AgentsRequester `json:"requester"`
	DefaultAgent string          `json:"defaultAgent"`
	SpawnAllowed string          `json:"spawnAllowed"`
	Agents       []AgentRow      `json:"agents"`
	// Errors: the hosts that failed, over a fleet only.
	Errors *[]HostError `json:"errors,omitempty"`

	// Fleet: rows from several hosts (each says its context).
	Fleet bool `json:"-"`
	// SaysRequester: the document names a requester (not over a fleet).
	SaysRequester bool `json:"-"`
}

// agentsResult is the document of a host's agent list.
func agentsResult(a *backend.AgentsResult) *AgentsResult {
	return &AgentsResult{Requester: a.Requester, DefaultAgent: a.DefaultAgent, SpawnAllowed: a.SpawnAllowed,
		Agents: a.Agents, Errors: a.Errors, Fleet: a.Fleet, SaysRequester: a.SaysRequester}
}

// Agents lists the agents where this invocation works, with what the
// requester may do with each: see its sessions, spawn into it, write it
// (Capabilities) — each host's answer (backend.Host.AgentList). Over a
// fleet every row says its context, requester and defaultAgent are empty
// (each row's default says it per host), and a failing host is in Errors.
func (o *Ops) Agents(ctx context.Context) (*AgentsResult, error) {
	v, err := o.agents(ctx)
	return deliver(o, v, err)
}

// agents is Agents before the agent boundary.
func (o *Ops) agents(ctx context.Context) (*AgentsResult, error) {
	hosts, fleet, err := o.where.Hosts()
	if err != nil {
		return nil, err
	}
	defer closeAll(hosts)
	if !fleet {
		w, err := o.where.HostWrites(oneHostRuns)
		if err != nil {
			return nil, err
		}
		a, err := hosts[0].AgentList(ctx, w.Options)
		if err != nil {
			return nil, err
		}
		return agentsResult(a), nil
	}
	parts, errs := backend.Each(hosts, func(h backend.Host) (*backend.AgentsResult, error) {
		return h.AgentList(ctx, sessionwrite.Options{})
	})
	res := &AgentsResult{Agents: []AgentRow{}, Fleet: true}
	failed := []HostError{}
	for i, h := range hosts {
		where := h.Where()
		if errs[i] != nil {
			failed = append(failed, HostError{Context: where, Error: errs[i].Error(), Err: errs[i]})
			continue
		}
		for _, row := range parts[i].Agents {
			row.Context = where
			res.Agents = append(res.Agents, row)
		}
	}
	res.Errors = &failed
	return res, nil
}
