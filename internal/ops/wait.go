package ops

import (
	"context"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/runs"
)

// OnWait is called when an operation starts waiting for a run's reply,
// with the session it waits for; the func it returns is called when the
// wait ends (a terminal's spinner, a server's progress notifications).
// nil: nothing is shown.
type OnWait func(target string) (done func())

// WaitRequest asks for the reply of a recorded run.
type WaitRequest struct {
	RunID   string
	Timeout time.Duration // > 0
	OnWait  OnWait
}

// Wait waits up to q.Timeout for the first step of run q.RunID to end and
// returns the result `send` would have given. A run found through the
// gateway the invocation names is looked for in that gateway's home on
// this machine. Giving up (the timeout: exit 5, or ctx ended) is an error
// carrying the run id: the run goes on. A failed first step is an error
// too ("timeout" when the turn itself timed out, else "error"), with the
// run id.
func (o *Ops) Wait(ctx context.Context, q WaitRequest) (*RunResult, error) {
	v, err := o.wait(ctx, q)
	return deliver(o, v, err)
}

// wait is Wait before the agent boundary.
func (o *Ops) wait(ctx context.Context, q WaitRequest) (*RunResult, error) {
	rs, err := o.runStore()
	if err != nil {
		return nil, err
	}
	rec, err := rs.Load(strings.TrimSpace(q.RunID))
	if err != nil {
		return nil, err
	}
	return waitRun(ctx, rs, rec, q.Timeout, q.OnWait)
}

// runStore is where this invocation's runs are recorded
// (hostset.Resolver.RunStore).
func (o *Ops) runStore() (*runs.Store, error) { return o.where.RunStore(oneHostRuns) }

// waitRun waits for rec's first step (launch.Wait), telling onWait, and
// makes its result.
func waitRun(ctx context.Context, rs *runs.Store, rec *runs.Record, timeout time.Duration, onWait OnWait) (*RunResult, error) {
	var done func()
	if onWait != nil {
		done = onWait(rec.Target.Shown())
	}
	last, err := launch.Wait(ctx, rs, rec, timeout)
	if done != nil {
		done()
	}
	if err != nil {
		return nil, err
	}
	return runs.Done(last)
}
