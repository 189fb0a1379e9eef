package ops

import (
	"context"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/runs"
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
	Cleanup           string // keep (also ""), delete
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
// a store that cannot be written (exit 10). The host the invocation works
// on checks all of it and creates the child (backend.Host.Spawn); the one
// run record is made here and launched. Through a gateway (the one the
// invocation names, or the live gateway of a 2026.8+ agent) the child is
// made by the gateway's own spawn, which starts its task.
func (o *Ops) Spawn(ctx context.Context, q SpawnRequest) (*SpawnResult, error) {
	res, err := o.spawn(ctx, q)
	return deliver(o, res, err)
}

// checkSpawn is the one check of a spawn's own inputs, before anything is
// read (usage errors, exit 2): a task, a run timeout of 0 or more, a
// cleanup of keep (the default) or delete, an engine and a delivery that
// are specs (completed from the environment). The label, model, thinking
// level and target agent are the host's (backend.Host.Spawn: its config
// and era decide them).
func (o *Ops) checkSpawn(q *SpawnRequest) error {
	if strings.TrimSpace(q.Task) == "" {
		return apperr.Usagef("task required")
	}
	if q.RunTimeoutSeconds < 0 {
		return apperr.Usagef("--run-timeout must be 0 or more seconds (got %d)", q.RunTimeoutSeconds)
	}
	switch q.Cleanup {
	case "":
		q.Cleanup = "keep"
	case "keep", "delete":
	default:
		return apperr.Usagef("invalid --cleanup %q (want keep or delete)", q.Cleanup)
	}
	return o.resolveEngineDeliver(&q.Engine, &q.Deliver)
}

func (o *Ops) spawn(ctx context.Context, q SpawnRequest) (*SpawnResult, error) {
	if err := o.checkSpawn(&q); err != nil {
		return nil, err
	}
	h, w, err := o.where.Host(oneHostRuns)
	if err != nil {
		return nil, err
	}
	runID := runs.NewID()
	c, err := h.Spawn(ctx, backend.SpawnAsk{RunID: runID, Task: q.Task, Label: q.Label, Model: q.Model, Thinking: q.Thinking,
		RunTimeoutSeconds: q.RunTimeoutSeconds, Engine: q.Engine, OpenClaw: q.OpenClaw, Runs: o.runSetup(w)})
	_ = h.Close() // done with the host's connection: the runner opens its own
	if err != nil {
		return nil, err
	}
	// the run (steps 11, 12)
	rec := &runs.Record{
		RunID:     runID,
		Kind:      runs.KindSpawn,
		Status:    runs.StatusAccepted,
		CreatedAt: c.At.UnixMilli(),
		Target:    runs.Session{Key: c.Key, DisplayKey: c.Key, AgentID: c.Agent, SessionID: c.SessionID, Channel: c.Requester.Channel},
		Requester: &c.Requester,
		Message:   q.Task,
		Engine:    c.Engine,
		Deliver:   q.Deliver,
		Steps:     []runs.Step{},
		Settings:  c.Settings,
		Spawn: &runs.Spawn{
			Task: q.Task, Label: c.Label, Model: c.Model, Thinking: c.Thinking,
			RunTimeoutSeconds: q.RunTimeoutSeconds, Cleanup: q.Cleanup,
			GatewayRoute: c.GatewayRoute, GatewayRunID: c.GatewayRunID, Warning: c.Warning,
		},
	}
	if rec.Engine == "" {
		rec.Engine = "provider"
	}
	if c.ArchiveAfterMinutes > 0 {
		rec.Spawn.ArchiveAtMs = rec.CreatedAt + int64(c.ArchiveAfterMinutes)*60_000
	}
	if _, err := c.Launcher.Launch(c.State, rec); err != nil {
		return nil, err
	}
	return &SpawnResult{Status: runs.StatusAccepted, ChildSessionKey: c.Key, RunID: runID, ModelApplied: c.ModelApplied, Warning: c.Warning}, nil
}
