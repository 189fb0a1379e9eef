package gatewayhost

import (
	"context"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
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

// Spawn creates a sub-agent's child through this gateway, the one the
// invocation names, by the gateway's own spawn (SpawnThrough); the
// run is recorded in the gateway's home on this machine. Without --as:
// the host operator's spawn from the main session of --agent (else main)
// into the same agent; the model and thinking level are the gateway's to
// check (its config is not read). With --as (or $OPENCLAW_SESSION_KEY):
// the requester is checked against that host's config (config.get)
// exactly as locally — no spawn from a sub-agent session, --agent another
// agent only when the requester agent's subagents.allowAgents allows it
// (checkRemoteSpawn) — and the child takes the target agent's sub-agent
// model default from it when --model is not given.
func (g *Gateway) Spawn(ctx context.Context, q backend.SpawnAsk) (*backend.SpawnedChild, error) {
	var err error
	route := sessionwrite.GatewayRoute(g.Endpoint)
	g.debug("spawn through the gateway this invocation names", "gateway", g.Endpoint.String(), "auth", g.Endpoint.AuthSource)
	agent := config.NormalizeAgentID(g.Agent)
	if strings.TrimSpace(g.Agent) == "" {
		agent = "main"
	}
	sp := ChildSpawn{Route: route, Writes: q.Runs.Writes, Agent: agent, Debug: g.debug}
	if strings.TrimSpace(q.Label) != "" {
		l, err := route.ParseLabel(q.Label)
		if err != nil {
			return nil, err
		}
		sp.Label = l
	}
	if raw := strings.TrimSpace(q.Thinking); raw != "" {
		if sp.Thinking = launch.NormalizeThinkLevel(raw); sp.Thinking == "" {
			return nil, apperr.Usagef("%s", launch.InvalidThinkingMessage(raw, q.Model))
		}
	}
	if sp.Engine, err = q.Runs.Launcher(nil).ChooseEngineFor(route, agent, q.Engine, q.OpenClaw); err != nil {
		return nil, err
	}
	sp.Model = strings.TrimSpace(q.Model)
	sp.Requester = runs.Session{Key: keys.MainOf(agent), AgentID: agent}
	if acc, err := g.spawnRequester(ctx); err != nil {
		return nil, err
	} else if acc != nil {
		if sp.Agent, sp.Model, err = checkRemoteSpawn(acc, g.Agent, sp.Model); err != nil {
			return nil, err
		}
		r, err := g.requesterSession(ctx, acc)
		if err != nil {
			return nil, err
		}
		sp.Requester = *r
		sp.Settings = settingsOf(acc, g.Where())
	}
	if sp.State, err = q.Runs.Home(); err != nil {
		return nil, err
	}
	sp.Launcher = q.Runs.Launcher(sp.State)
	return SpawnThrough(ctx, q, sp)
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

// ChildSpawn is a spawn made ready for a gateway's own spawn (SpawnThrough):
// where the run is recorded (State) and started (Launcher), the route, the
// child's agent, the requester, and what the child is made with.
type ChildSpawn struct {
	State     *state.State
	Launcher  *launch.Launcher
	Route     sessionwrite.Route
	Writes    sessionwrite.Options
	Agent     string
	Requester runs.Session
	Label     string
	Model     string // provider/model or as given ("" none)
	Thinking  string
	Engine    string
	Settings  *runs.Settings
	Debug     func(msg string, kv ...any)
}

// SpawnThrough spawns through g's gateway — the one the invocation
// names, or this host's live gateway of a 2026.8+ agent: the child is
// created by starting its task turn (sessionwrite's gateway CreateChild:
// gateway.Client.Spawn); the run's runner then waits for the task, runs
// the announce step, announces to the requester (chat.inject, else a turn
// of the requester) and cleans up. The child's key derives from the run's
// task idempotency key, so a retry of the task step is the same run on the
// gateway. The child is not put in the archive index.
func SpawnThrough(ctx context.Context, q backend.SpawnAsk, g ChildSpawn) (*backend.SpawnedChild, error) {
	idem := engine.IdempotencyKey(q.RunID, "0-task-0") // the runner's task step
	childKey := gateway.SubagentKey(g.Agent, idem)
	w, err := sessionwrite.OpenRoute(g.State, g.Agent, g.Route, g.Writes)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	res, err := w.CreateChild(ctx, sessionwrite.Child{
		Key: childKey, ParentKey: g.Requester.Key, RequesterAgent: g.Requester.AgentID, Label: g.Label,
		Task: q.Task, Model: g.Model, Thinking: g.Thinking, RunTimeoutSeconds: q.RunTimeoutSeconds, IdempotencyKey: idem,
		SystemPrompt: runner.SubagentSystemPrompt(runner.SubagentContext{Task: q.Task, Label: g.Label,
			RequesterKey: g.Requester.DisplayKey, RequesterChannel: g.Requester.Channel, ChildKey: childKey}),
	})
	if err != nil {
		return nil, err
	}
	g.Debug("child session created", "key", res.Key, "store", res.Path, "era", w.Route().Via(), "route", res.RunRoute, "run", res.RunID)
	out := &backend.SpawnedChild{Key: res.Key, SessionID: res.SessionID, Agent: g.Agent, Requester: g.Requester,
		Label: g.Label, Model: g.Model, Thinking: g.Thinking, Engine: g.Engine, Settings: g.Settings,
		At: q.Runs.Now(), GatewayRoute: res.RunRoute, Warning: res.Warning, State: g.State, Launcher: g.Launcher}
	if res.RunRoute == gateway.RouteSessionsCreate {
		out.GatewayRunID = res.RunID // not ours: the task step waits for it
	}
	if g.Model != "" {
		applied := res.ModelApplied || (res.RunRoute == gateway.RouteSessionsCreate && res.Warning == "")
		out.ModelApplied = &applied
	}
	return out, nil
}
