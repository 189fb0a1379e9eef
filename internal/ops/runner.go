package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/hostset"
	"github.com/openclaw/sessions/internal/runner"
	"github.com/openclaw/sessions/internal/runs"
)

// ExecuteRun performs the recorded run runID to its end, as the detached
// runner that send and spawn start: the agent turn, the ping-pong, the
// announce, and for a sub-agent its cleanup. ctx cancels the current turn.
func (o *Ops) ExecuteRun(ctx context.Context, runID string) error {
	return o.where.LocalHost().ExecuteRun(ctx, runID, func(rec *runs.Record, r *runner.Runner) error {
		t, err := o.runHosts(rec)
		if err != nil {
			return err
		}
		w, err := t.Writes(r.State, oneHostRuns, o.cfg.LockTimeout, o.cfg.Now)
		if err != nil {
			return err
		}
		r.Log, r.Now, r.LockTimeout = o.cfg.Log, o.cfg.Now, o.cfg.LockTimeout
		r.GatewayEndpoint, r.Gateways, r.Route = t.TurnGatewayOf(r.State), w.Options.Gateways, w.Route
		return nil
	})
}

// runHosts is the host set a run's runner works with: resolved from the
// gateway selector the run records (a gateway-engine run's, serialised
// once when it was launched), else the runner's own invocation (also for
// a run this host does not hold: Execute reports it).
func (o *Ops) runHosts(rec *runs.Record) (*hostset.Set, error) {
	if rec == nil || rec.Gateway == nil {
		return o.where.Set()
	}
	return o.where.For(*rec.Gateway)
}

// RunnerCommand is the name of the hidden command a detached runner
// executes (`sessions RunnerCommand RUN_ID`).
const RunnerCommand = runner.CommandName
