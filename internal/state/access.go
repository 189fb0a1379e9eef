package state

import (
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
)

// Access is who is asking and what one config lets them reach (CONTRACT
// §3): the requester (--as), the agent-to-agent policy and the sandbox.
// The config is the local one (Open), or a gateway host's as its
// config.get returns it (internal/backend): --as means the same either
// way. Pure: no I/O.
type Access struct {
	Default string // the config's default agent id
	Req     Requester
	A2A     policy.A2A
	Sandbox policy.Sandbox
	// Remote is the gateway host's config the requester was checked
	// against (config.get; gatewayhost.Access), for what a run through
	// that gateway reads from it; nil locally (State.Cfg is the config).
	Remote *config.Config
}

// NewAccess identifies the requester under cfg: as is --as (or
// $OPENCLAW_SESSION_KEY; "" for the host operator), agent is --agent
// normalised ("" when not given), sandboxed is --sandboxed.
func NewAccess(cfg *config.Config, as, agent string, sandboxed bool) Access {
	a := Access{
		Default: cfg.DefaultAgentID(),
		A2A:     policy.A2A{Enabled: cfg.Tools.AgentToAgent.Enabled, Allow: cfg.Tools.AgentToAgent.Allow},
		Sandbox: policy.Sandbox{
			Flag:       sandboxed,
			Mode:       cfg.Defaults.Sandbox.Mode,
			Visibility: cfg.Defaults.Sandbox.SessionToolsVisibility,
		},
	}
	req := Requester{Agent: a.Default}
	if agent != "" {
		req.Agent = agent
	}
	if raw := strings.TrimSpace(as); raw != "" {
		req.Raw = raw
		req.Key = keys.Canonical(raw, a.Default, config.NormalizeAgentID)
		req.Agent = keys.AgentOf(req.Key, a.Default, config.NormalizeAgentID)
		req.Subagent = keys.IsSubagent(req.Key)
		main := keys.MainOf(req.Agent)
		req.Sandboxed = a.Sandbox.Sandboxed(req.Key, main)
		req.Restrict = a.Sandbox.RestrictToSpawned(req.Key, main, req.Subagent)
	} else if sandboxed {
		req.Sandboxed = true
	}
	a.Req = req
	return a
}

// CanSeeAgent reports whether the requester may read (or, by op, send to)
// the sessions of agent — always for the operator —, and OpenClaw's
// refusal message when not.
func (a *Access) CanSeeAgent(agent string, op policy.Op) string {
	if a.Req.Operator() {
		return ""
	}
	return a.A2A.Check(op, a.Req.Agent, agent)
}

// SeesSpawnedBy reports whether a session spawned by spawnedBy passes the
// sandbox restriction (a restricted requester sees only its own children).
func (a *Access) SeesSpawnedBy(spawnedBy string) bool {
	if !a.Req.Restrict {
		return true
	}
	return spawnedBy != "" && (spawnedBy == a.Req.Key || spawnedBy == a.Req.Raw)
}

// Reaches reports whether the requester may see a session of agent that
// spawnedBy spawned: sandbox visibility and the agent-to-agent policy
// (format §6.2) — always for the operator.
func (a *Access) Reaches(agent, spawnedBy string) bool {
	return a.SeesSpawnedBy(spawnedBy) && a.CanSeeAgent(agent, policy.OpHistory) == ""
}

// CheckTarget is what Resolve checks on the session a reference found: a
// session the requester may not see is answered exactly as one that does
// not exist (NotFound, or NotFoundLabel when label is set), so no
// reference tells a hidden session from a missing one. ref is the
// reference as given. The operator sees every session.
func (a *Access) CheckTarget(ref, label, agent, spawnedBy string) error {
	if a.Reaches(agent, spawnedBy) {
		return nil
	}
	if label != "" {
		return a.NotFoundLabel(label)
	}
	return a.NotFound(ref)
}

// NotFound is the error of a reference that names no session the
// requester may see: for a restricted requester "not visible" (OpenClaw's
// own answer, whether the session exists or not), else not found.
func (a *Access) NotFound(ref string) error {
	if a.Req.Restrict {
		return apperr.Forbiddenf("%s%s", policy.MsgNotVisible, ref)
	}
	return apperr.NotFoundf("No session found: %s", ref)
}

// NotFoundLabel is NotFound for a label lookup (format §6.3 step 3).
func (a *Access) NotFoundLabel(label string) error {
	if a.Req.Restrict {
		return apperr.Forbiddenf("Session not visible from this sandboxed agent session.")
	}
	return apperr.NotFoundf("No session found with label: %s", label)
}

// CheckLabelAgent is what a label lookup in agent's sessions checks first
// (format §6.3 step 3).
func (a *Access) CheckLabelAgent(agent string, op policy.Op) error {
	if a.Req.Restrict && agent != a.Req.Agent {
		return apperr.Forbiddenf("%s", policy.MsgSandboxLabelLookup)
	}
	if msg := a.CanSeeAgent(agent, op); msg != "" {
		return apperr.Forbiddenf("%s", msg)
	}
	return nil
}
