package ops

import (
	"context"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/runs"
)

// RunResult is the JSON document of `send` and `wait`.
type RunResult struct {
	RunID      string         `json:"runId"`
	Status     string         `json:"status"`
	Reply      *string        `json:"reply,omitempty"`
	SessionKey string         `json:"sessionKey,omitempty"`
	Delivery   *DeliveryState `json:"delivery,omitempty"`
	Error      string         `json:"error,omitempty"`
}

// DeliveryState is the delivery part of a result: the announce's delivery
// as the run record has it when the result is made — "pending" until the
// runner has settled it, then skipped, recorded, delivered or failed (with
// the reason).
type DeliveryState struct {
	Status string `json:"status"`
	Mode   string `json:"mode"`
	Error  string `json:"error,omitempty"`
}

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
		done = onWait(displayOf(rec.Target))
	}
	last, err := launch.Wait(ctx, rs, rec, timeout)
	if done != nil {
		done()
	}
	if err != nil {
		return nil, err
	}
	return doneResult(last)
}

// acceptedResult is the result of a run not waited for.
func acceptedResult(rec *runs.Record) *RunResult {
	return &RunResult{RunID: rec.RunID, Status: runs.StatusAccepted, SessionKey: displayOf(rec.Target)}
}

// doneResult is the result of a run whose first step has ended: ok with
// the reply, or the step's failure — "timeout" (exit 5) when the turn
// itself timed out, as OpenClaw's agent.wait reports it, else "error"
// (exit 1), with the run id.
func doneResult(r *runs.Record) (*RunResult, error) {
	if !hasOKTurn(r) {
		msg, timedOut := r.Error, r.Status == runs.StatusTimeout
		if len(r.Steps) > 0 {
			if msg == "" {
				msg = r.Steps[0].Error
			}
			timedOut = timedOut || r.Steps[0].Status == runs.StatusTimeout
		}
		if msg == "" {
			msg = "agent error"
		}
		e := apperr.Errorf("%s", msg)
		if timedOut {
			e = apperr.Timeoutf("%s", msg)
		}
		return nil, e.With("runId", r.RunID)
	}
	reply := r.Reply
	return &RunResult{RunID: r.RunID, Status: runs.StatusOK, Reply: &reply, SessionKey: displayOf(r.Target), Delivery: deliveryOf(r)}, nil
}

// hasOKTurn reports whether the first step succeeded (later steps may fail
// without failing what send waited for).
func hasOKTurn(r *runs.Record) bool {
	return len(r.Steps) > 0 && r.Steps[0].Status == runs.StatusOK
}

// deliveryOf is a run record's delivery state; "pending" while the record
// has none yet or has not settled it.
func deliveryOf(r *runs.Record) *DeliveryState {
	d := &DeliveryState{Status: "pending", Mode: "announce"}
	if rd := r.Delivery; rd != nil && rd.Status != "" {
		d.Status = rd.Status
		if rd.Mode != "" {
			d.Mode = rd.Mode
		}
		if rd.Status != "pending" {
			d.Error = rd.Error
		}
	}
	return d
}

func displayOf(s runs.Session) string {
	if s.DisplayKey != "" {
		return s.DisplayKey
	}
	return s.Key
}
