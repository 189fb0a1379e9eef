package backend

import (
	"context"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// AgentRow is one agent (a row of `sessions agents`).
type AgentRow struct {
	Context     string `json:"context,omitempty"`
	ID          string `json:"id"`
	Name        string `json:"name,omitempty"`
	Default     bool   `json:"default"`
	Configured  bool   `json:"configured"`
	Era         string `json:"era"` // as Capabilities.Era
	Store       string `json:"store"`
	Sessions    *int   `json:"sessions,omitempty"`
	Visible     bool   `json:"visible"`
	SpawnTarget bool   `json:"spawnTarget"`
	// Writable: send, spawn and patch can write this agent's store (an
	// OpenClaw 2026.8+ SQLite store: when no OpenClaw process holds the
	// state dir, or through its live gateway).
	Writable bool `json:"writable"`
	// CanSpawn: spawnTarget and writable — 'spawn --agent ID' would be
	// accepted by the requester; Reason says why not otherwise (or how
	// the writes go).
	CanSpawn bool   `json:"canSpawn"`
	Reason   string `json:"reason,omitempty"`
	// ThroughGateway: the agent is worked on through a gateway the
	// invocation names (Reason then says how a spawn goes).
	ThroughGateway bool `json:"-"`
}

// AgentsRequester names who asked.
type AgentsRequester struct {
	Key     string `json:"key,omitempty"`
	AgentID string `json:"agentId"`
}

// AgentsResult is the document of `sessions agents`.
type AgentsResult struct {
	Requester    AgentsRequester `json:"requester"`
	DefaultAgent string          `json:"defaultAgent"`
	SpawnAllowed string          `json:"spawnAllowed"`
	Agents       []AgentRow      `json:"agents"`
	// Errors: the hosts that failed, in fleet mode only.
	Errors *[]HostError `json:"errors,omitempty"`

	// Fleet: the rows come from several hosts (each row says its context).
	Fleet bool `json:"-"`
	// SaysRequester: the requester is this host's (a terminal view says
	// who asked and whom spawn may target).
	SaysRequester bool `json:"-"`
}

// AgentList are the agents of this host's state dir: configured in
// openclaw.json or present under <state>/agents/, each with what the
// requester may do with it (wo: the invocation's write options, whose
// live-gateway lookup the target does once).
func (l *Local) AgentList(_ context.Context, wo sessionwrite.Options) (*AgentsResult, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	var allow []string
	if a := s.Cfg.Agent(s.Req.Agent); a != nil {
		allow = a.Subagents.AllowAgents
	}
	res := &AgentsResult{
		Requester:     AgentsRequester{Key: s.Req.Key, AgentID: s.Req.Agent},
		DefaultAgent:  s.Default,
		SpawnAllowed:  policy.SpawnAllowedList(allow, config.NormalizeAgentID),
		Agents:        []AgentRow{},
		SaysRequester: true,
	}
	fromSubagent := keys.IsSubagent(s.Req.Key)
	caper := localCaps(s, wo)
	for _, id := range s.AgentIDs() {
		caps := caper.of(id)
		a := AgentRow{ID: id, Default: id == s.Default, Era: caps.Era, Visible: caps.Readable, Writable: caps.Writable}
		if c := s.Cfg.Agent(id); c != nil {
			a.Configured = true
			a.Name = c.Name
		}
		a.Store, _ = s.StorePath(id)
		e := s.Era(id)
		if e == era.SQLite {
			a.Store = s.SQLitePath(id)
		}
		if e != era.None && a.Visible {
			if _, entries, err := s.Entries(id); err == nil {
				n := len(entries)
				a.Sessions = &n
			} else {
				l.Warn(err.Error())
			}
		}
		refusal := policy.SpawnTarget(allow, s.Req.Agent, id, config.NormalizeAgentID)
		a.SpawnTarget = !fromSubagent && refusal == ""
		a.CanSpawn = a.SpawnTarget && a.Writable
		switch {
		case !a.Writable:
			a.Reason = caps.WhyNot
		case fromSubagent:
			a.Reason = "a sub-agent may not spawn"
		case !a.SpawnTarget:
			a.Reason = "not allowed by " + s.Req.Agent + " (subagents.allowAgents: " + res.SpawnAllowed + ")"
		case caps.WritesThrough != "":
			a.Reason = "routed through the live gateway at " + caps.WritesThrough
		}
		res.Agents = append(res.Agents, a)
	}
	return res, nil
}

// AgentList are the agents of this gateway: agents.list and the session
// counts of sessions.list. Era is "gateway", store the context or URL;
// every agent is writable through the gateway (send, spawn and patch go
// there), and whether spawn may target it is computed as locally: with
// --as from the host's config (config.get: the requester agent's
// subagents.allowAgents, no spawn from a sub-agent), without it for the
// operator, whose spawn through a gateway starts from the target agent's
// own main session (always allowed).
func (g *Gateway) AgentList(ctx context.Context, _ sessionwrite.Options) (*AgentsResult, error) {
	list, err := g.Agents(ctx)
	if err != nil {
		return nil, err
	}
	res := &AgentsResult{Agents: []AgentRow{}}
	where := g.Where()
	sp := spawnRules(g.Requester())
	res.SpawnAllowed = sp.allowed
	for _, a := range list {
		n := a.Sessions
		caps := gatewayCaps(g.Endpoint.URL, !a.Hidden)
		row := AgentRow{ID: a.ID, Name: a.Name, Default: a.Default, Configured: a.Name != "" || a.Default, Era: caps.Era,
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
		res.Requester = AgentsRequester{Key: acc.Req.Key, AgentID: acc.Req.Agent}
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
