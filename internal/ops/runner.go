package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/runner"
	"github.com/openclaw/sessions/internal/runs"
)

// ExecuteRun performs the recorded run runID to its end, as the detached
// runner that send and spawn start: the agent turn, the ping-pong, the
// announce, and for a sub-agent its cleanup. ctx cancels the current turn.
func (o *Ops) ExecuteRun(ctx context.Context, runID string) error {
	s, err := o.openState()
	if err != nil {
		return err
	}
	w, err := o.writes(s, oneHostRuns)
	if err != nil {
		return err
	}
	t, _ := o.hostSet() // writes resolved it
	r := &runner.Runner{State: s, Runs: runs.Open(s.Dir.Path), Log: o.cfg.Log, Now: o.cfg.Now, LockTimeout: o.cfg.LockTimeout,
		GatewayEndpoint: t.TurnGatewayOf(s), Gateways: w.Options.Gateways}
	if w.Host != nil {
		ep := w.Host.Endpoint()
		r.Through = &ep
	}
	return r.Execute(ctx, runID)
}

// RunnerCommand is the name of the hidden command a detached runner
// executes (`sessions RunnerCommand RUN_ID`).
const RunnerCommand = runner.CommandName
