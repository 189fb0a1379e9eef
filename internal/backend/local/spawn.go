package local

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// Spawn creates a sub-agent's child in this host's state dir, for the
// requester (--as, else the main session of --agent or the default
// agent): the requester, target agent, label, model and thinking level
// checked against this host's config (spawnAskOf), then the child made
// where this host routes the target agent's writes (Local.route) — in one
// locked insert into its own store (sessions.json or its SQLite
// database), or, for a 2026.8+ agent whose gateway is live here, by that
// gateway's own spawn (nothing written to its database by us).
func (l *Local) Spawn(ctx context.Context, q backend.SpawnAsk) (*backend.SpawnedChild, error) {
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	a, err := spawnAskOf(s, q)
	if err != nil {
		return nil, err
	}
	route, wo, err := l.route(s, a.target, "spawn")
	if err != nil {
		return nil, err
	}
	ln := q.Runs.Launcher(s)
	if !route.ThroughGateway() {
		return l.spawnInStore(ctx, s, ln, q, a)
	}
	return l.spawnThroughLive(ctx, s, ln, q, a, route, wo)
}

// spawnAsk is a local spawn's request checked against this host's config
// (format §6.4 steps 3–5, 7–9): who asks, into which agent, with which
// label, model and thinking level.
type spawnAsk struct {
	reqAgent, reqKey string // the requester (the operator: its agent's main session)
	target           string // the agent the child is made in
	label, thinking  string
	model            *launch.Model
}

func spawnAskOf(s *state.State, q backend.SpawnAsk) (spawnAsk, error) {
	var a spawnAsk
	// who asks (steps 3, 4)
	if s.Req.Subagent {
		return a, apperr.Forbiddenf("%s", policy.MsgSpawnFromSubagent)
	}
	if strings.TrimSpace(q.Label) != "" {
		// 2026.9.6's 512 here; the target's era decides once it is open
		l, err := sessionwrite.ParseLabel("", q.Label)
		if err != nil {
			return a, err
		}
		a.label = l
	}
	a.reqAgent, a.reqKey = s.Req.Agent, s.Req.Key
	if s.Req.Operator() {
		a.reqKey = keys.MainOf(a.reqAgent)
	}
	// the target agent (step 5)
	a.target = a.reqAgent
	if s.AgentFlag != "" {
		a.target = s.AgentFlag
	}
	if a.target != a.reqAgent {
		var allow []string
		if ag := s.Cfg.Agent(a.reqAgent); ag != nil {
			allow = ag.Subagents.AllowAgents
		}
		if msg := policy.SpawnTarget(allow, a.reqAgent, a.target, config.NormalizeAgentID); msg != "" {
			return a, apperr.Forbiddenf("%s", msg)
		}
	}
	if err := s.CheckAgent(a.target); err != nil {
		return a, err
	}
	// model and thinking (steps 7, 8, 9)
	modelRef := strings.TrimSpace(q.Model)
	if modelRef == "" {
		modelRef = strings.TrimSpace(s.Cfg.SubagentModelFor(a.target))
	}
	if raw := strings.TrimSpace(q.Thinking); raw != "" {
		if a.thinking = launch.NormalizeThinkLevel(raw); a.thinking == "" {
			return a, apperr.Usagef("%s", launch.InvalidThinkingMessage(raw, modelRef))
		}
	}
	if modelRef != "" {
		m, err := launch.CheckModel(s.Cfg, modelRef)
		if err != nil {
			return a, apperr.Errorf("%v", err)
		}
		a.model = &m
	}
	return a, nil
}

// spawnInStore spawns into the target agent's own store (its
// sessions.json or SQLite database): what the runner could not write
// refused, the engine chosen, then the child created in one locked
// insert (createChild); the run goes into the archive index when the
// config archives sub-agents.
func (l *Local) spawnInStore(ctx context.Context, s *state.State, ln *launch.Launcher, q backend.SpawnAsk, a spawnAsk) (*backend.SpawnedChild, error) {
	// what the runner could not do
	if err := launch.PreflightAgent(s, a.target); err != nil {
		return nil, err
	}
	eng, err := ln.ChooseEngine(q.Engine, q.OpenClaw)
	if err != nil {
		return nil, err
	}
	c, err := l.createChild(ctx, s, a, q.Runs)
	if err != nil {
		return nil, err
	}
	// the run (steps 11, 12)
	requester := runs.Session{Key: a.reqKey, DisplayKey: s.Req.Raw, AgentID: a.reqAgent}
	if c.Requester != nil {
		requester.Key = c.Requester.Key
		requester.SessionID = c.Requester.SessionID
		requester.Channel = c.Requester.Channel
	}
	out := &backend.SpawnedChild{Key: c.Key, SessionID: c.SessionID, Agent: a.target, Requester: requester,
		Label: c.Label, Thinking: a.thinking, Engine: eng, At: c.Now,
		ArchiveAfterMinutes: max(s.Cfg.ArchiveAfterMinutes(), 0), State: s, Launcher: ln}
	if a.model != nil {
		applied := true
		out.Model, out.ModelApplied = a.model.Key(), &applied
	}
	return out, nil
}

// createChild creates the child in the target agent's store
// (sessionwrite.CreateChild: one locked insert, the requester's entry read
// and its transcript checked).
func (l *Local) createChild(ctx context.Context, s *state.State, a spawnAsk, r backend.RunSetup) (*sessionwrite.CreatedChild, error) {
	reqStorePath, _ := s.StorePath(a.reqAgent)
	childStorePath, _ := s.StorePath(a.target)
	if reqStorePath != childStorePath {
		if err := launch.PreflightAgent(s, a.reqAgent); err != nil {
			return nil, err
		}
	}
	spec := sessionwrite.ChildSpec{Target: a.target, RequesterAgent: a.reqAgent, RequesterKey: a.reqKey, Label: a.label, Thinking: a.thinking,
		Key: "agent:" + a.target + ":subagent:" + uuid.NewString(), SessionID: uuid.NewString(), Now: r.Now()}
	if a.model != nil && !launch.RedundantOverride(s.Cfg, a.target, a.model) {
		spec.ModelOverride, spec.ProviderOverride = a.model.ID, a.model.Provider
	}
	// the agent's own store, written directly: no gateway routes this write
	c, err := sessionwrite.CreateChild(ctx, s, spec, sessionwrite.Options{LockTimeout: r.Writes.LockTimeout, Now: r.Writes.Now})
	if err != nil {
		return nil, err
	}
	l.debug("child session created", "key", c.Key, "store", c.Path, "era", c.Era)
	return c, nil
}
