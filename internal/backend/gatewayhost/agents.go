package gatewayhost

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// AgentList are the agents of this gateway: agents.list and the session
// counts of sessions.list. Era is "gateway", store the context or URL;
// every agent is writable through the gateway (send, spawn and patch go
// there), and whether spawn may target it is computed as locally: with
// --as from the host's config (config.get: the requester agent's
// subagents.allowAgents, no spawn from a sub-agent), without it for the
// operator, whose spawn through a gateway starts from the target agent's
// own main session (always allowed).
func (g *Gateway) AgentList(ctx context.Context, _ sessionwrite.Options) (*backend.AgentsResult, error) {
	list, err := g.Agents(ctx)
	if err != nil {
		return nil, err
	}
	res := &backend.AgentsResult{Agents: []backend.AgentRow{}}
	where := g.Where()
	sp := spawnRules(g.Requester())
	res.SpawnAllowed = sp.allowed
	for _, a := range list {
		n := a.Sessions
		caps := gatewayCaps(g.Endpoint.URL, !a.Hidden)
		row := backend.AgentRow{ID: a.ID, Name: a.Name, Default: a.Default, Configured: a.Name != "" || a.Default, Era: caps.Era,
			Store: where, Sessions: &n, Visible: caps.Readable, Writable: caps.Writable, ThroughGateway: true}
		row.SpawnTarget, row.Reason = sp.target(a.ID, where)
		row.CanSpawn = row.SpawnTarget
		if a.Hidden { // as locally: no count for an agent the requester may not see
			row.Sessions = nil
		}
		if a.Default {
			res.DefaultAgent, res.Requester.AgentID = a.ID, a.ID
		}
		res.Agents = append(res.Agents, row)
	}
	if acc := g.Requester(); acc != nil {
		res.Requester = backend.AgentsRequester{Key: acc.Req.Key, AgentID: acc.Req.Agent}
	}
	return res, nil
}

// remoteSpawn is what spawn may target on one gateway (spawnRules).
type remoteSpawn struct {
	acc     *state.Access
	allow   []string
	allowed string // the requester agent's allowAgents as agents shows it
}

// spawnRules are the spawn rules of the requester on a gateway: with
// --as, its agent's subagents.allowAgents from the host's config, as
// locally (nil acc: the operator).
func spawnRules(acc *state.Access) remoteSpawn {
	sp := remoteSpawn{acc: acc}
	if acc == nil || acc.Remote == nil {
		return sp
	}
	if a := acc.Remote.Agent(acc.Req.Agent); a != nil {
		sp.allow = a.Subagents.AllowAgents
	}
	sp.allowed = policy.SpawnAllowedList(sp.allow, config.NormalizeAgentID)
	return sp
}

// target: may spawn target agent id, and the reason (why not, else how the
// write goes).
func (sp remoteSpawn) target(id, where string) (bool, string) {
	via := "routed through the gateway " + where
	if sp.acc == nil || sp.acc.Remote == nil {
		return true, via + " (the operator's spawn from agent:" + id + ":main)"
	}
	if sp.acc.Req.Subagent {
		return false, "a sub-agent may not spawn"
	}
	if policy.SpawnTarget(sp.allow, sp.acc.Req.Agent, id, config.NormalizeAgentID) != "" {
		return false, "not allowed by " + sp.acc.Req.Agent + " (subagents.allowAgents: " + sp.allowed + ")"
	}
	return true, via
}
