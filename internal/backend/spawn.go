package backend

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/engine"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runner"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// SpawnAsk is a sub-agent task as a host spawns it.
type SpawnAsk struct {
	// RunID is the run's id: through a gateway the child's key and its
	// task turn derive from it (the runner's task step), so a retry of
	// that step is the same run on the gateway.
	RunID    string
	Task     string
	Label    string // the child's label as given ("" none)
	Model    string // PROVIDER/MODEL or an alias ("" the agent's subagents.model)
	Thinking string // the thinking level as given ("" none)
	// RunTimeoutSeconds aborts the task after that long (0: the turn
	// timeout); a gateway's spawn starts the task with it.
	RunTimeoutSeconds int
	// Engine, OpenClaw: as for SendAsk.
	Engine, OpenClaw string
	Runs             RunSetup
}

// SpawnedChild is the child a host created, and what the spawn's run
// records: the run is recorded in State and started by Launcher.
type SpawnedChild struct {
	Key, SessionID string
	Agent          string // the agent the child is made in
	// Requester is the session the child was spawned for (its announce
	// goes there); the child takes its channel.
	Requester runs.Session
	// Label, Model (provider/model, or as given over a gateway) and
	// Thinking are what the child was made with ("" none).
	Label, Model, Thinking string
	// ModelApplied: whether Model took effect (nil: no model asked).
	ModelApplied *bool
	Engine       string // the engine the run records
	// Settings are the run settings read from a gateway host's config
	// (nil: the state's own config, or OpenClaw's defaults).
	Settings *runs.Settings
	// At is when the child was made: the run's creation time.
	At time.Time
	// ArchiveAfterMinutes: the child goes into the local archive index,
	// due that long after At (0: it is not indexed — removing a child
	// made by a gateway is --cleanup delete's or sessions delete's job).
	ArchiveAfterMinutes int
	// Through a gateway: how the child was made and its task started
	// (GatewayRoute), the gateway's run id of the task when it is not
	// ours (GatewayRunID), and the model patch's warning.
	GatewayRoute, GatewayRunID, Warning string

	State    *state.State // where the run is recorded
	Launcher *launch.Launcher
}

// Spawn creates a sub-agent's child in this host's state dir, for the
// requester (--as, else the main session of --agent or the default
// agent): the requester, target agent, label, model and thinking level
// checked against this host's config (spawnAskOf), then the child made
// where this host routes the target agent's writes (Local.route) — in one
// locked insert into its own store (sessions.json or its SQLite
// database), or, for a 2026.8+ agent whose gateway is live here, by that
// gateway's own spawn (nothing written to its database by us).
func (l *Local) Spawn(ctx context.Context, q SpawnAsk) (*SpawnedChild, error) {
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

// spawnThroughLive spawns through this host's live gateway of a 2026.8+
// agent (route, Local.route's overlay): the engine is the gateway's, the
// requester's entry read here for the child's announce.
func (l *Local) spawnThroughLive(ctx context.Context, s *state.State, ln *launch.Launcher, q SpawnAsk, a spawnAsk, route sessionwrite.Route, wo sessionwrite.Options) (*SpawnedChild, error) {
	var err error
	g := gatewaySpawn{s: s, l: ln, route: route, wo: wo, target: a.target, label: a.label, thinking: a.thinking, debug: l.debug}
	if g.engine, err = ln.ChooseEngineFor(route, a.target, q.Engine, q.OpenClaw); err != nil {
		return nil, err
	}
	g.req = runs.Session{Key: a.reqKey, DisplayKey: s.Req.Raw, AgentID: a.reqAgent}
	if t, err := s.Lookup(a.reqKey); err == nil && t != nil {
		g.req.Key, g.req.SessionID, g.req.Channel = t.Entry.Key, t.Entry.SessionID, s.ChannelOf(t.Entry)
	}
	if a.model != nil {
		g.model = a.model.Key()
	}
	return spawnThroughGateway(ctx, q, g)
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

func spawnAskOf(s *state.State, q SpawnAsk) (spawnAsk, error) {
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
func (l *Local) spawnInStore(ctx context.Context, s *state.State, ln *launch.Launcher, q SpawnAsk, a spawnAsk) (*SpawnedChild, error) {
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
	out := &SpawnedChild{Key: c.Key, SessionID: c.SessionID, Agent: a.target, Requester: requester,
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
func (l *Local) createChild(ctx context.Context, s *state.State, a spawnAsk, r RunSetup) (*sessionwrite.CreatedChild, error) {
	reqStorePath, _ := s.StorePath(a.reqAgent)
	childStorePath, _ := s.StorePath(a.target)
	if reqStorePath != childStorePath {
		if err := launch.PreflightAgent(s, a.reqAgent); err != nil {
			return nil, err
		}
	}
	spec := sessionwrite.ChildSpec{Target: a.target, RequesterAgent: a.reqAgent, RequesterKey: a.reqKey, Label: a.label, Thinking: a.thinking,
		Key: "agent:" + a.target + ":subagent:" + uuid.NewString(), SessionID: uuid.NewString(), Now: r.now()}
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

// Spawn creates a sub-agent's child through this gateway, the one the
// invocation names, by the gateway's own spawn (spawnThroughGateway); the
// run is recorded in the gateway's home on this machine. Without --as:
// the host operator's spawn from the main session of --agent (else main)
// into the same agent; the model and thinking level are the gateway's to
// check (its config is not read). With --as (or $OPENCLAW_SESSION_KEY):
// the requester is checked against that host's config (config.get)
// exactly as locally — no spawn from a sub-agent session, --agent another
// agent only when the requester agent's subagents.allowAgents allows it
// (checkRemoteSpawn) — and the child takes the target agent's sub-agent
// model default from it when --model is not given.
func (g *Gateway) Spawn(ctx context.Context, q SpawnAsk) (*SpawnedChild, error) {
	var err error
	route := sessionwrite.GatewayRoute(g.Endpoint)
	g.debug("spawn through the gateway this invocation names", "gateway", g.Endpoint.String(), "auth", g.Endpoint.AuthSource)
	agent := config.NormalizeAgentID(g.Agent)
	if strings.TrimSpace(g.Agent) == "" {
		agent = "main"
	}
	sp := gatewaySpawn{route: route, wo: q.Runs.Writes, target: agent, debug: g.debug}
	if strings.TrimSpace(q.Label) != "" {
		l, err := route.ParseLabel(q.Label)
		if err != nil {
			return nil, err
		}
		sp.label = l
	}
	if raw := strings.TrimSpace(q.Thinking); raw != "" {
		if sp.thinking = launch.NormalizeThinkLevel(raw); sp.thinking == "" {
			return nil, apperr.Usagef("%s", launch.InvalidThinkingMessage(raw, q.Model))
		}
	}
	if sp.engine, err = q.Runs.Launcher(nil).ChooseEngineFor(route, agent, q.Engine, q.OpenClaw); err != nil {
		return nil, err
	}
	sp.model = strings.TrimSpace(q.Model)
	sp.req = runs.Session{Key: keys.MainOf(agent), AgentID: agent}
	if acc, err := g.spawnRequester(ctx); err != nil {
		return nil, err
	} else if acc != nil {
		if sp.target, sp.model, err = checkRemoteSpawn(acc, g.Agent, sp.model); err != nil {
			return nil, err
		}
		r, err := g.requesterSession(ctx, acc)
		if err != nil {
			return nil, err
		}
		sp.req = *r
		sp.settings = settingsOf(acc, g.Where())
	}
	if sp.s, err = q.Runs.Home(); err != nil {
		return nil, err
	}
	sp.l = q.Runs.Launcher(sp.s)
	return spawnThroughGateway(ctx, q, sp)
}

// spawnRequester connects and resolves --as on this gateway (nil without
// one: nothing is dialled here).
func (g *Gateway) spawnRequester(ctx context.Context) (*state.Access, error) {
	if g.As == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	c, err := g.Client(ctx)
	if err != nil {
		return nil, err
	}
	return g.Access(ctx, c)
}

// checkRemoteSpawn makes the local spawn's requester checks (format §6.4
// steps 3–5, 7) with the gateway host's config: a sub-agent session may
// not spawn; the target agent (--agent, else the requester's) must be the
// requester's own or allowed by its subagents.allowAgents; the model is
// --model, else the target agent's sub-agent default.
func checkRemoteSpawn(acc *state.Access, agentFlag, model string) (string, string, error) {
	if acc.Req.Subagent {
		return "", "", apperr.Forbiddenf("%s", policy.MsgSpawnFromSubagent)
	}
	cfg := acc.Remote
	reqAgent := acc.Req.Agent
	target := reqAgent
	if strings.TrimSpace(agentFlag) != "" {
		target = config.NormalizeAgentID(agentFlag)
	}
	if target != reqAgent {
		var allow []string
		if a := cfg.Agent(reqAgent); a != nil {
			allow = a.Subagents.AllowAgents
		}
		if msg := policy.SpawnTarget(allow, reqAgent, target, config.NormalizeAgentID); msg != "" {
			return "", "", apperr.Forbiddenf("%s", msg)
		}
	}
	if model == "" {
		model = strings.TrimSpace(cfg.SubagentModelFor(target))
	}
	return target, model, nil
}

// gatewaySpawn is a spawn made ready for a gateway's own spawn: where the
// run is recorded (s) and started (l), the route, the child's agent, the
// requester, and what the child is made with.
type gatewaySpawn struct {
	s        *state.State
	l        *launch.Launcher
	route    sessionwrite.Route
	wo       sessionwrite.Options
	target   string
	req      runs.Session
	label    string
	model    string // provider/model or as given ("" none)
	thinking string
	engine   string
	settings *runs.Settings
	debug    func(msg string, kv ...any)
}

// spawnThroughGateway spawns through g's gateway — the one the invocation
// names, or this host's live gateway of a 2026.8+ agent: the child is
// created by starting its task turn (sessionwrite's gateway CreateChild:
// gateway.Client.Spawn); the run's runner then waits for the task, runs
// the announce step, announces to the requester (chat.inject, else a turn
// of the requester) and cleans up. The child's key derives from the run's
// task idempotency key, so a retry of the task step is the same run on the
// gateway. The child is not put in the archive index.
func spawnThroughGateway(ctx context.Context, q SpawnAsk, g gatewaySpawn) (*SpawnedChild, error) {
	idem := engine.IdempotencyKey(q.RunID, "0-task-0") // the runner's task step
	childKey := gateway.SubagentKey(g.target, idem)
	w, err := sessionwrite.OpenRoute(g.s, g.target, g.route, g.wo)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	res, err := w.CreateChild(ctx, sessionwrite.Child{
		Key: childKey, ParentKey: g.req.Key, RequesterAgent: g.req.AgentID, Label: g.label,
		Task: q.Task, Model: g.model, Thinking: g.thinking, RunTimeoutSeconds: q.RunTimeoutSeconds, IdempotencyKey: idem,
		SystemPrompt: runner.SubagentSystemPrompt(runner.SubagentContext{Task: q.Task, Label: g.label,
			RequesterKey: g.req.DisplayKey, RequesterChannel: g.req.Channel, ChildKey: childKey}),
	})
	if err != nil {
		return nil, err
	}
	g.debug("child session created", "key", res.Key, "store", res.Path, "era", w.Route().Via(), "route", res.RunRoute, "run", res.RunID)
	out := &SpawnedChild{Key: res.Key, SessionID: res.SessionID, Agent: g.target, Requester: g.req,
		Label: g.label, Model: g.model, Thinking: g.thinking, Engine: g.engine, Settings: g.settings,
		At: q.Runs.now(), GatewayRoute: res.RunRoute, Warning: res.Warning, State: g.s, Launcher: g.l}
	if res.RunRoute == gateway.RouteSessionsCreate {
		out.GatewayRunID = res.RunID // not ours: the task step waits for it
	}
	if g.model != "" {
		applied := res.ModelApplied || (res.RunRoute == gateway.RouteSessionsCreate && res.Warning == "")
		out.ModelApplied = &applied
	}
	return out, nil
}
