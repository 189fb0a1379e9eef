package spawn

import (
	"context"
	"fmt"
	"github.com/openclaw/sessions/internal/era"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/cmd/patch"
	"github.com/openclaw/sessions/internal/cmd/send"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/engine"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runner"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// runRemote is spawn through the gateway the invocation names. Without
// --as: the host operator's spawn from the main session of --agent (else
// main) into the same agent; the model and thinking level are the
// gateway's to check (its config is not read). With --as (or
// $OPENCLAW_SESSION_KEY): the requester is checked against that host's
// config (config.get) exactly as locally — no spawn from a sub-agent
// session, --agent another agent only when the requester agent's
// subagents.allowAgents allows it — and the child takes the target agent's
// sub-agent model default from it when --model is not given. The run is
// recorded in the gateway's home.
func runRemote(o *Options, ep gateway.Endpoint) error {
	f := o.f
	route := sessionwrite.Route{Era: era.Gateway, Endpoint: ep, Named: true}
	f.Log.Debug("spawn through the gateway this invocation names", "gateway", ep.String(), "auth", ep.AuthSource)
	agent := config.NormalizeAgentID(f.Flags.Agent)
	if strings.TrimSpace(f.Flags.Agent) == "" {
		agent = "main"
	}
	label := ""
	if strings.TrimSpace(o.Label) != "" {
		l, err := patch.ParseLabel(o.Label)
		if err != nil {
			return apperr.Usagef("invalid label: %v", err)
		}
		label = l
	}
	thinking := ""
	if raw := strings.TrimSpace(o.Thinking); raw != "" {
		if thinking = NormalizeThinkLevel(raw); thinking == "" {
			return apperr.Usagef("%s", InvalidThinkingMessage(raw, o.Model))
		}
	}
	eng, err := send.ChooseEngineFor(f, nil, route, agent, o.Engine, o.OpenClaw)
	if err != nil {
		return err
	}
	o.Engine = eng
	model := strings.TrimSpace(o.Model)
	req := runs.Session{Key: keys.MainOf(agent), AgentID: agent}
	var settings *runs.Settings
	if acc, b, err := remoteRequester(f, ep); err != nil {
		return err
	} else if acc != nil {
		defer b.Close()
		if agent, model, err = checkRemoteSpawn(acc, f.Flags.Agent, model); err != nil {
			return err
		}
		r, err := send.RemoteRequester(context.Background(), b, acc)
		if err != nil {
			return err
		}
		req = *r
		settings = send.RemoteSettings(acc, b.Where())
	}
	wo, err := f.WriteOptions(nil)
	if err != nil {
		return err
	}
	s, err := send.GatewayState(f, ep)
	if err != nil {
		return err
	}
	return spawnVia(o, s, route, wo, agent, req, label, model, thinking, settings)
}

// remoteRequester connects and resolves --as on the gateway (nil, nil
// without one: nothing is dialled here). Close b.
func remoteRequester(f *cmdutil.Factory, ep gateway.Endpoint) (*state.Access, *backend.Gateway, error) {
	if strings.TrimSpace(f.Flags.As) == "" && strings.TrimSpace(f.Getenv("OPENCLAW_SESSION_KEY")) == "" {
		return nil, nil, nil
	}
	b := send.RemoteBackend(f, ep)
	ctx, cancel := context.WithTimeout(context.Background(), backend.CallTimeout)
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

// spawnVia spawns through route's gateway: the child is created by
// starting its task turn (sessionwrite's gateway CreateChild:
// gateway.Client.Spawn), the run is recorded in s's runs and its runner
// waits for the task, runs the announce step, announces to the requester
// (chat.inject, else a turn of the requester) and cleans up. The child's
// key derives from the run's task idempotency key, so a retry of the task
// step is the same run on the gateway. The child is not put in our archive
// index: removing it is --cleanup delete's (or sessions delete's) job.
func spawnVia(o *Options, s *state.State, route sessionwrite.Route, wo sessionwrite.Options, target string, req runs.Session, label, model, thinking string, settings *runs.Settings) error {
	f := o.f
	runID := runs.NewID()
	idem := engine.IdempotencyKey(runID, "0-task-0") // the runner's task step
	childKey := gateway.SubagentKey(target, idem)
	w, err := sessionwrite.OpenRoute(s, target, route, wo)
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := w.CreateChild(context.Background(), sessionwrite.Child{
		Key: childKey, ParentKey: req.Key, RequesterAgent: req.AgentID, Label: label,
		Task: o.Task, Model: model, Thinking: thinking, RunTimeoutSeconds: o.RunTimeout, IdempotencyKey: idem,
		SystemPrompt: runner.SubagentSystemPrompt(runner.SubagentContext{Task: o.Task, Label: label,
			RequesterKey: req.DisplayKey, RequesterChannel: req.Channel, ChildKey: childKey}),
	})
	if err != nil {
		return err
	}
	f.Log.Debug("child session created", "key", res.Key, "store", res.Path, "era", w.Era(), "route", res.RunRoute, "run", res.RunID)
	rec := &runs.Record{
		RunID:     runID,
		Kind:      runs.KindSpawn,
		Status:    runs.StatusAccepted,
		CreatedAt: f.Now().UnixMilli(),
		Target:    runs.Session{Key: res.Key, DisplayKey: res.Key, AgentID: target, SessionID: res.SessionID, Channel: req.Channel},
		Requester: &req,
		Message:   o.Task,
		Engine:    o.Engine,
		Deliver:   o.Deliver,
		Steps:     []runs.Step{},
		Settings:  settings,
		Spawn: &runs.Spawn{
			Task: o.Task, Label: label, Model: model, Thinking: thinking,
			RunTimeoutSeconds: o.RunTimeout, Cleanup: o.Cleanup,
			GatewayRoute: res.RunRoute, Warning: res.Warning,
		},
	}
	if res.RunRoute == gateway.RouteSessionsCreate {
		rec.Spawn.GatewayRunID = res.RunID // not ours: the task step waits for it
	}
	rs := runs.Open(s.Dir.Path)
	if err := rs.Save(rec); err != nil {
		return err
	}
	if err := send.StartRunner(f, s, rs, rec); err != nil {
		return err
	}
	out := Result{Status: runs.StatusAccepted, ChildSessionKey: res.Key, RunID: runID, Warning: res.Warning}
	if model != "" {
		applied := res.ModelApplied || (res.RunRoute == gateway.RouteSessionsCreate && res.Warning == "")
		out.ModelApplied = &applied
	}
	if f.JSONMode() {
		return f.PrintJSON(out)
	}
	fmt.Fprintf(f.IO.Out, "%s\t%s\n", runID, res.Key)
	if res.Warning != "" {
		f.Warn(res.Warning)
	}
	if f.IO.IsStderrTTY() {
		fmt.Fprintf(f.IO.ErrOut, "Spawned %s; follow with: sessions wait %s\n", res.Key, runID)
	}
	return nil
}
