package ops

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/engine"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runner"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/target"
)

// SpawnRequest is a sub-agent task and how it is run.
type SpawnRequest struct {
	Task     string
	Label    string // the child's label ("" none)
	Model    string // PROVIDER/MODEL or an alias ("" the agent's subagents.model)
	Thinking string // the thinking level as given ("" none)
	// RunTimeoutSeconds aborts the task after that long (0: the turn
	// timeout).
	RunTimeoutSeconds int
	Cleanup           string // keep | delete
	// Engine, OpenClaw, Deliver: as for SendRequest.
	Engine, OpenClaw, Deliver string
}

// SpawnResult is the JSON document of `sessions spawn` (key order of
// OpenClaw's sessions_spawn result).
type SpawnResult struct {
	Status          string `json:"status"`
	ChildSessionKey string `json:"childSessionKey"`
	RunID           string `json:"runId"`
	ModelApplied    *bool  `json:"modelApplied,omitempty"`
	Warning         string `json:"warning,omitempty"`
}

// Spawn creates a sub-agent session agent:<agent>:subagent:<uuid> for the
// requester (--as, else the main session of --agent or the default agent),
// records its run and starts the detached runner that performs the task,
// announces the result to the requester and cleans up. It returns as soon
// as the child exists and its runner is started. Refused before anything
// is written: a sub-agent requester or an agent subagents.allowAgents does
// not allow (exit 3), an unknown agent (exit 4), an invalid thinking level
// or label (exit 2), a model that is not configured or not allowed (exit 1),
// a store that cannot be written (exit 10). Through a gateway (the one the
// invocation names, or the live gateway of a 2026.8+ agent) the child is
// made by the gateway's own spawn.
func (o *Ops) Spawn(ctx context.Context, q SpawnRequest) (*SpawnResult, error) {
	res, err := o.spawn(ctx, q)
	if res != nil && o.masking() {
		c := *res
		c.Warning = o.redactText(c.Warning)
		res = &c
	}
	return res, o.maskErr(err)
}

func (o *Ops) spawn(ctx context.Context, q SpawnRequest) (*SpawnResult, error) {
	if err := o.ResolveEngineDeliver(&q.Engine, &q.Deliver); err != nil {
		return nil, err
	}
	w, err := o.writes(nil, oneHostRuns)
	if err != nil {
		return nil, err
	}
	if w.Host != nil {
		return o.spawnThroughNamed(ctx, q, *w.Host, w)
	}
	s, err := o.openState()
	if err != nil {
		return nil, err
	}
	a, err := spawnAskOf(s, q)
	if err != nil {
		return nil, err
	}
	// where the child is written: through the live gateway of a 2026.8+
	// agent, the gateway's own spawn (nothing written to its database)
	tg, _ := o.target() // writes resolved it
	if w, err = tg.Writes(s, oneHostRuns, o.cfg.LockTimeout, o.cfg.Now); err != nil {
		return nil, err
	}
	route, err := w.Route(s, a.target, "spawn")
	if err != nil {
		return nil, err
	}
	if route.Era != era.Gateway {
		return o.spawnLocal(ctx, s, q, a)
	}
	g := gatewaySpawn{s: s, l: o.launcher(tg, s, nil), route: route, wo: w.Options, target: a.target, label: a.label, thinking: a.thinking}
	if g.engine, err = g.l.ChooseEngineFor(route, a.target, q.Engine, q.OpenClaw); err != nil {
		return nil, err
	}
	g.req = runs.Session{Key: a.reqKey, DisplayKey: s.Req.Raw, AgentID: a.reqAgent}
	if t, err := s.Lookup(a.reqKey); err == nil && t != nil {
		g.req.Key, g.req.SessionID, g.req.Channel = t.Entry.Key, t.Entry.SessionID, s.ChannelOf(t.Entry)
	}
	if a.model != nil {
		g.model = a.model.Key()
	}
	return o.spawnThroughGateway(ctx, q, g)
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

func spawnAskOf(s *state.State, q SpawnRequest) (spawnAsk, error) {
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

// spawnLocal spawns into the target agent's own store (its sessions.json
// or SQLite database): the child is created in one locked insert, then the
// run is launched (recorded, put in the archive index, its runner started).
func (o *Ops) spawnLocal(ctx context.Context, s *state.State, q SpawnRequest, a spawnAsk) (*SpawnResult, error) {
	// what the runner could not do
	if err := launch.PreflightAgent(s, a.target); err != nil {
		return nil, err
	}
	tg, err := o.target()
	if err != nil {
		return nil, err
	}
	l := o.launcher(tg, s, nil)
	eng, err := l.ChooseEngine(q.Engine, q.OpenClaw)
	if err != nil {
		return nil, err
	}
	c, err := o.createLocalChild(ctx, s, a)
	if err != nil {
		return nil, err
	}
	// the run (steps 11, 12)
	requester := &runs.Session{Key: a.reqKey, DisplayKey: s.Req.Raw, AgentID: a.reqAgent}
	if c.Requester != nil {
		requester.Key = c.Requester.Key
		requester.SessionID = c.Requester.SessionID
		requester.Channel = c.Requester.Channel
	}
	rec := &runs.Record{
		RunID:     runs.NewID(),
		Kind:      runs.KindSpawn,
		Status:    runs.StatusAccepted,
		CreatedAt: c.Now.UnixMilli(),
		Target:    runs.Session{Key: c.Key, DisplayKey: c.Key, AgentID: a.target, SessionID: c.SessionID, Channel: requester.Channel},
		Requester: requester,
		Message:   q.Task,
		Engine:    eng,
		Deliver:   q.Deliver,
		Steps:     []runs.Step{},
		Spawn: &runs.Spawn{
			Task:              q.Task,
			Label:             c.Label,
			Thinking:          a.thinking,
			RunTimeoutSeconds: q.RunTimeoutSeconds,
			Cleanup:           q.Cleanup,
		},
	}
	if rec.Engine == "" {
		rec.Engine = "provider"
	}
	if a.model != nil {
		rec.Spawn.Model = a.model.Key()
	}
	if m := s.Cfg.ArchiveAfterMinutes(); m > 0 {
		rec.Spawn.ArchiveAtMs = rec.CreatedAt + int64(m)*60_000
	}
	if _, err := l.Launch(s, rec); err != nil {
		return nil, err
	}
	out := &SpawnResult{Status: runs.StatusAccepted, ChildSessionKey: c.Key, RunID: rec.RunID}
	if a.model != nil {
		applied := true
		out.ModelApplied = &applied
	}
	return out, nil
}

// createLocalChild creates the child in the target agent's store
// (sessionwrite.CreateChild: one locked insert, the requester's entry read
// and its transcript checked).
func (o *Ops) createLocalChild(ctx context.Context, s *state.State, a spawnAsk) (*sessionwrite.CreatedChild, error) {
	reqStorePath, _ := s.StorePath(a.reqAgent)
	childStorePath, _ := s.StorePath(a.target)
	if reqStorePath != childStorePath {
		if err := launch.PreflightAgent(s, a.reqAgent); err != nil {
			return nil, err
		}
	}
	spec := sessionwrite.ChildSpec{Target: a.target, RequesterAgent: a.reqAgent, RequesterKey: a.reqKey, Label: a.label, Thinking: a.thinking,
		Key: "agent:" + a.target + ":subagent:" + uuid.NewString(), SessionID: uuid.NewString(), Now: o.Now()}
	if a.model != nil && !launch.RedundantOverride(s.Cfg, a.target, a.model) {
		spec.ModelOverride, spec.ProviderOverride = a.model.ID, a.model.Provider
	}
	c, err := sessionwrite.CreateChild(ctx, s, spec, sessionwrite.Options{LockTimeout: o.cfg.LockTimeout, Now: o.cfg.Now})
	if err != nil {
		return nil, err
	}
	o.debug("child session created", "key", c.Key, "store", c.Path, "era", c.Era)
	return c, nil
}

// spawnThroughNamed is spawn through the gateway the invocation names
// (route). Without --as: the host operator's spawn from the main session
// of --agent (else main) into the same agent; the model and thinking level
// are the gateway's to check (its config is not read). With --as (or
// $OPENCLAW_SESSION_KEY): the requester is checked against that host's
// config (config.get) exactly as locally — no spawn from a sub-agent
// session, --agent another agent only when the requester agent's
// subagents.allowAgents allows it — and the child takes the target agent's
// sub-agent model default from it when --model is not given. The run is
// recorded in the gateway's home.
func (o *Ops) spawnThroughNamed(ctx context.Context, q SpawnRequest, h target.Host, w *target.Writes) (*SpawnResult, error) {
	tg, _ := o.target() // w came from it
	route, err := sessionwrite.Choose(nil, "", w.Options)
	if err != nil {
		return nil, err
	}
	wo := w.Options
	o.debug("spawn through the gateway this invocation names", "gateway", h.String(), "auth", route.Endpoint.AuthSource)
	agent := config.NormalizeAgentID(o.cfg.Agent)
	if strings.TrimSpace(o.cfg.Agent) == "" {
		agent = "main"
	}
	g := gatewaySpawn{route: route, wo: wo, target: agent}
	if strings.TrimSpace(q.Label) != "" {
		l, err := ParseLabel(era.JSON, q.Label)
		if err != nil {
			return nil, err
		}
		g.label = l
	}
	if raw := strings.TrimSpace(q.Thinking); raw != "" {
		if g.thinking = launch.NormalizeThinkLevel(raw); g.thinking == "" {
			return nil, apperr.Usagef("%s", launch.InvalidThinkingMessage(raw, q.Model))
		}
	}
	if g.engine, err = o.launcher(tg, nil, &h).ChooseEngineFor(route, agent, q.Engine, q.OpenClaw); err != nil {
		return nil, err
	}
	g.model = strings.TrimSpace(q.Model)
	g.req = runs.Session{Key: keys.MainOf(agent), AgentID: agent}
	if acc, b, err := o.namedRequester(ctx, h); err != nil {
		return nil, err
	} else if acc != nil {
		defer b.Close()
		if g.target, g.model, err = checkRemoteSpawn(acc, o.cfg.Agent, g.model); err != nil {
			return nil, err
		}
		r, err := remoteRequester(ctx, b, acc)
		if err != nil {
			return nil, err
		}
		g.req = *r
		g.settings = remoteSettings(acc, b.Where())
	}
	if g.s, err = o.runHome(tg, h); err != nil {
		return nil, err
	}
	g.l = o.launcher(tg, g.s, &h)
	return o.spawnThroughGateway(ctx, q, g)
}

// namedRequester connects and resolves --as on the gateway ep (nil, nil
// without one: nothing is dialled here). Close b.
func (o *Ops) namedRequester(ctx context.Context, h target.Host) (*state.Access, *backend.Gateway, error) {
	if strings.TrimSpace(o.cfg.As) == "" && strings.TrimSpace(o.cfg.Getenv("OPENCLAW_SESSION_KEY")) == "" {
		return nil, nil, nil
	}
	b := o.gatewayReader(h)
	ctx, cancel := context.WithTimeout(ctx, backend.CallTimeout)
	defer cancel()
	c, err := b.Client(ctx)
	if err == nil {
		var acc *state.Access
		if acc, err = b.Access(ctx, c); err == nil && acc != nil {
			return acc, b, nil
		}
	}
	_ = b.Close()
	return nil, nil, err
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
// run is recorded (s), the route, the child's agent, the requester, and
// what the child is made with.
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
}

// spawnThroughGateway spawns through g's gateway: the child is created by
// starting its task turn (sessionwrite's gateway CreateChild:
// gateway.Client.Spawn), the run is recorded in g.s's runs and its runner
// waits for the task, runs the announce step, announces to the requester
// (chat.inject, else a turn of the requester) and cleans up. The child's
// key derives from the run's task idempotency key, so a retry of the task
// step is the same run on the gateway. The child is not put in our archive
// index: removing it is --cleanup delete's (or sessions delete's) job.
func (o *Ops) spawnThroughGateway(ctx context.Context, q SpawnRequest, g gatewaySpawn) (*SpawnResult, error) {
	runID := runs.NewID()
	idem := engine.IdempotencyKey(runID, "0-task-0") // the runner's task step
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
	o.debug("child session created", "key", res.Key, "store", res.Path, "era", w.Era(), "route", res.RunRoute, "run", res.RunID)
	rec := &runs.Record{
		RunID:     runID,
		Kind:      runs.KindSpawn,
		Status:    runs.StatusAccepted,
		CreatedAt: o.Now().UnixMilli(),
		Target:    runs.Session{Key: res.Key, DisplayKey: res.Key, AgentID: g.target, SessionID: res.SessionID, Channel: g.req.Channel},
		Requester: &g.req,
		Message:   q.Task,
		Engine:    g.engine,
		Deliver:   q.Deliver,
		Steps:     []runs.Step{},
		Settings:  g.settings,
		Spawn: &runs.Spawn{
			Task: q.Task, Label: g.label, Model: g.model, Thinking: g.thinking,
			RunTimeoutSeconds: q.RunTimeoutSeconds, Cleanup: q.Cleanup,
			GatewayRoute: res.RunRoute, Warning: res.Warning,
		},
	}
	if res.RunRoute == gateway.RouteSessionsCreate {
		rec.Spawn.GatewayRunID = res.RunID // not ours: the task step waits for it
	}
	if _, err := g.l.Launch(g.s, rec); err != nil {
		return nil, err
	}
	out := &SpawnResult{Status: runs.StatusAccepted, ChildSessionKey: res.Key, RunID: runID, Warning: res.Warning}
	if g.model != "" {
		applied := res.ModelApplied || (res.RunRoute == gateway.RouteSessionsCreate && res.Warning == "")
		out.ModelApplied = &applied
	}
	return out, nil
}
