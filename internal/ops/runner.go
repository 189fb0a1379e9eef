package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/hostset"
	"github.com/openclaw/sessions/internal/runner"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
)

// ExecuteRun performs the recorded run runID to its end, as the detached
// runner that send and spawn start: the agent turn, the ping-pong, the
// announce, and for a sub-agent its cleanup. ctx cancels the current turn.
func (o *Ops) ExecuteRun(ctx context.Context, runID string) error {
	s, err := o.openState()
	if err != nil {
		return err
	}
	t, err := o.runHosts(s, runID)
	if err != nil {
		return err
	}
	w, err := t.Writes(s, oneHostRuns, o.cfg.LockTimeout, o.cfg.Now)
	if err != nil {
		return err
	}
	r := &runner.Runner{State: s, Runs: runs.Open(s.Dir.Path), Log: o.cfg.Log, Now: o.cfg.Now, LockTimeout: o.cfg.LockTimeout,
		GatewayEndpoint: t.TurnGatewayOf(s), Gateways: w.Options.Gateways}
	if w.Host != nil {
		ep := w.Host.Endpoint()
		r.Through = &ep
	}
	return r.Execute(ctx, runID)
}

// runHosts is the host set a run's runner works with: resolved from the
// gateway selector the run records (a gateway-engine run's, serialised
// once when it was launched), else the runner's own invocation.
func (o *Ops) runHosts(s *state.State, runID string) (*hostset.Set, error) {
	rec, err := runs.Open(s.Dir.Path).Load(runID)
	if err != nil || rec.Gateway == nil {
		return o.where.Set() // a missing run is Execute's to report
	}
	return o.where.For(*rec.Gateway)
}

// RunnerCommand is the name of the hidden command a detached runner
// executes (`sessions RunnerCommand RUN_ID`).
const RunnerCommand = runner.CommandName
