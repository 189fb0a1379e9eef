package runs

import (
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/rundoc"
)

// Doc is the document of a record (rundoc.Record): its fields as a listing
// shows them, without the selector its runner resolves its gateway with
// (Record.Gateway is the runner's input, not part of what runs and wait
// show).
func Doc(r *Record) *rundoc.Record {
	d := &rundoc.Record{RunID: r.RunID, Kind: r.Kind, Status: r.Status, CreatedAt: r.CreatedAt, StartedAt: r.StartedAt, EndedAt: r.EndedAt,
		Target: rundoc.Session(r.Target), Message: r.Message, TimeoutSeconds: r.TimeoutSeconds, Engine: r.Engine, Deliver: r.Deliver,
		ReplyDone: r.ReplyDone, Reply: r.Reply, Error: r.Error, RunnerPID: r.RunnerPID, Source: r.Source, Context: r.Context}
	if r.Requester != nil {
		s := rundoc.Session(*r.Requester)
		d.Requester = &s
	}
	if r.Steps != nil {
		d.Steps = make([]rundoc.Step, len(r.Steps))
		for i, st := range r.Steps {
			d.Steps[i] = rundoc.Step{Name: st.Name, Session: st.Session, Turn: st.Turn, Status: st.Status, Reply: st.Reply, Error: st.Error,
				StartedAt: st.StartedAt, EndedAt: st.EndedAt, Model: st.Model}
			if st.Usage != nil {
				u := rundoc.Usage(*st.Usage)
				d.Steps[i].Usage = &u
			}
		}
	}
	if r.Delivery != nil {
		v := rundoc.Delivery(*r.Delivery)
		d.Delivery = &v
	}
	if r.Spawn != nil {
		v := rundoc.Spawn(*r.Spawn)
		d.Spawn = &v
	}
	if r.Settings != nil {
		v := rundoc.Settings(*r.Settings)
		d.Settings = &v
	}
	return d
}

// NodeDocs are the documents of a lineage tree (Tree).
func NodeDocs(ns []*Node) []*rundoc.Node {
	if ns == nil {
		return nil
	}
	out := make([]*rundoc.Node, len(ns))
	for i, n := range ns {
		out[i] = &rundoc.Node{SessionKey: n.SessionKey, RunID: n.RunID, Label: n.Label, Status: n.Status, Outcome: n.Outcome,
			CreatedAt: n.CreatedAt, ArchivedAt: n.ArchivedAt, Source: n.Source, Children: NodeDocs(n.Children)}
	}
	return out
}

// Accepted is the result of a run not waited for.
func Accepted(r *Record) *rundoc.Result {
	return &rundoc.Result{RunID: r.RunID, Status: StatusAccepted, SessionKey: r.Target.Shown()}
}

// Done is the result of a run whose first step has ended: ok with the
// reply, or the step's failure — "timeout" (exit 5) when the turn itself
// timed out, as OpenClaw's agent.wait reports it, else "error" (exit 1),
// with the run id.
func Done(r *Record) (*rundoc.Result, error) {
	if !hasOKTurn(r) {
		msg, timedOut := r.Error, r.Status == StatusTimeout
		if len(r.Steps) > 0 {
			if msg == "" {
				msg = r.Steps[0].Error
			}
			timedOut = timedOut || r.Steps[0].Status == StatusTimeout
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
	return &rundoc.Result{RunID: r.RunID, Status: StatusOK, Reply: &reply, SessionKey: r.Target.Shown(), Delivery: deliveryOf(r)}, nil
}

// hasOKTurn reports whether the first step succeeded (later steps may fail
// without failing what send waited for).
func hasOKTurn(r *Record) bool {
	return len(r.Steps) > 0 && r.Steps[0].Status == StatusOK
}

// deliveryOf is a run record's delivery state; "pending" while the record
// has none yet or has not settled it.
func deliveryOf(r *Record) *rundoc.DeliveryState {
	d := &rundoc.DeliveryState{Status: "pending", Mode: "announce"}
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

// Shown is the key of s as the requester names it.
func (s Session) Shown() string {
	if s.DisplayKey != "" {
		return s.DisplayKey
	}
	return s.Key
}
