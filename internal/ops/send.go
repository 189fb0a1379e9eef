package ops

import (
	"context"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/runs"
)

// SendRequest is a message for a session and how its turn is run.
type SendRequest struct {
	Ref     string // a key, sessionId or unique prefix; or Label
	Label   string // the session with this label (Config.Agent picks the agent)
	Message string
	// Timeout is how long to wait for the reply; 0: return at once with
	// the run accepted. Giving up does not stop the run.
	Timeout time.Duration
	// Engine is the engine spec (launch.ResolveEngineDeliver: "" is auto);
	// OpenClaw the openclaw executable (--openclaw); Deliver the announce's
	// exec:COMMAND.
	Engine, OpenClaw, Deliver string
	// OnWait is told when the wait for the reply starts and ends.
	OnWait OnWait
}

// resolveEngineDeliver completes and checks the engine and delivery specs
// of a send or spawn (usage errors): an empty one takes $SESSIONS_ENGINE /
// $SESSIONS_DELIVER.
func (o *Ops) resolveEngineDeliver(eng, deliver *string) error {
	return launch.ResolveEngineDeliver(o.cfg.Getenv, eng, deliver)
}

// checkSend is the one check of a send's own inputs, before anything is
// read (usage errors, exit 2): a message, a timeout of 0 or more, an
// engine and a delivery that are specs (completed from the environment).
// The session, the requester and the engine's fitness are the host's
// (backend.Host.PlanSend).
func (o *Ops) checkSend(q *SendRequest) error {
	if strings.TrimSpace(q.Message) == "" {
		return apperr.Usagef("message required")
	}
	if q.Timeout < 0 {
		return apperr.Usagef("--timeout must be 0 or more seconds (got %d)", int(q.Timeout.Seconds()))
	}
	return o.resolveEngineDeliver(&q.Engine, &q.Deliver)
}

// Send records a run that sends q.Message into a session, starts its
// detached runner (the target's turn, the ping-pong with the requester,
// the announce) and waits up to q.Timeout for the target's reply.
// Everything that can be refused is refused before anything is written:
// the session must exist and be visible to the requester, agent-to-agent
// and the send policy must allow it (exit 3), the engine must be able to
// run the turn — the host the invocation works on checks all of it
// (backend.Host.PlanSend), then the one run record is made here and
// launched. Through a gateway (the one the invocation names, or the live
// gateway of a 2026.8+ agent) the turn is the gateway's own.
// With q.Timeout: the reply, or an error carrying the run id (the run
// goes on when the wait gives up).
func (o *Ops) Send(ctx context.Context, q SendRequest) (*RunResult, error) {
	v, err := o.send(ctx, q)
	return deliver(o, v, err)
}

// send is Send before the agent boundary.
func (o *Ops) send(ctx context.Context, q SendRequest) (*RunResult, error) {
	if err := o.checkSend(&q); err != nil {
		return nil, err
	}
	h, w, err := o.where.Host(oneHostRuns)
	if err != nil {
		return nil, err
	}
	p, err := h.PlanSend(ctx, backend.SendAsk{Ref: q.Ref, Label: q.Label, Engine: q.Engine, OpenClaw: q.OpenClaw, Runs: o.runSetup(w)})
	_ = h.Close() // done with the host's connection: the runner opens its own
	if err != nil {
		return nil, err
	}
	rec := &runs.Record{
		RunID:          runs.NewID(),
		Kind:           runs.KindSend,
		Status:         runs.StatusAccepted,
		CreatedAt:      o.Now().UnixMilli(),
		Target:         p.Target,
		Requester:      p.Requester,
		Message:        q.Message,
		TimeoutSeconds: int(q.Timeout / time.Second),
		Engine:         p.Engine,
		Deliver:        q.Deliver,
		Steps:          []runs.Step{},
		Settings:       p.Settings,
	}
	if rec.Engine == "" {
		rec.Engine = "provider"
	}
	rs, err := p.Launcher.Launch(p.State, rec)
	if err != nil {
		return nil, err
	}
	if q.Timeout <= 0 {
		return runs.Accepted(rec), nil
	}
	return waitRun(ctx, rs, rec, q.Timeout, q.OnWait)
}
