package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/sessionwrite"
)

// AgentRow is one agent (a row of `sessions agents`).
type AgentRow = backend.AgentRow

// AgentsRequester names who asked.
type AgentsRequester = backend.AgentsRequester

// AgentsResult is the document of `sessions agents`.
type AgentsResult = backend.AgentsResult

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
	hosts, fleet, err := o.hosts()
	if err != nil {
		return nil, err
	}
	defer closeAll(hosts)
	if !fleet {
		w, err := o.hostWrites(oneHostRuns)
		if err != nil {
			return nil, err
		}
		return hosts[0].AgentList(ctx, w.Options)
	}
	parts, errs := backend.Each(hosts, func(h backend.Host) (*AgentsResult, error) {
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
