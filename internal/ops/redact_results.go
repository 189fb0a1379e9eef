package ops

import (
	"errors"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/runs"
)

// Every text that reaches an agent is masked, not only transcripts: the
// reply and the error of a send or a wait, a run's message, replies,
// errors and announce, a spawn's warning, the task and summary show gives
// a run. The operator's output (masking off) is left as it is.

// maskRunResult masks a send's or a wait's reply and errors.
func (o *Ops) maskRunResult(res *RunResult, err error) (*RunResult, error) {
	if !o.masking() {
		return res, err
	}
	if res != nil {
		c := *res
		if c.Reply != nil {
			reply := o.redactText(*c.Reply)
			c.Reply = &reply
		}
		c.Error = o.redactText(c.Error)
		if c.Delivery != nil {
			d := *c.Delivery
			d.Error = o.redactText(d.Error)
			c.Delivery = &d
		}
		res = &c
	}
	return res, o.maskErr(err)
}

// maskErr masks the message of an error an operation returns (a run's
// failed step says what the target's turn said).
func (o *Ops) maskErr(err error) error {
	var e *apperr.Error
	if err == nil || !o.masking() || !errors.As(err, &e) || e.Msg == "" {
		return err
	}
	msg := o.redactText(e.Msg)
	if msg == e.Msg {
		return err
	}
	c := *e
	c.Msg = msg
	return &c
}

// maskRunRecord is r with its texts masked (a copy; r is left alone).
func (o *Ops) maskRunRecord(r *runs.Record) *runs.Record {
	c := *r
	c.Message = o.redactText(c.Message)
	c.Reply = o.redactText(c.Reply)
	c.Error = o.redactText(c.Error)
	if c.Steps != nil {
		c.Steps = append(make([]runs.Step, 0, len(c.Steps)), c.Steps...)
		for i := range c.Steps {
			c.Steps[i].Reply = o.redactText(c.Steps[i].Reply)
			c.Steps[i].Error = o.redactText(c.Steps[i].Error)
		}
	}
	if c.Delivery != nil {
		d := *c.Delivery
		d.Message, d.Error = o.redactText(d.Message), o.redactText(d.Error)
		c.Delivery = &d
	}
	if c.Spawn != nil {
		s := *c.Spawn
		s.Task, s.OutcomeError = o.redactText(s.Task), o.redactText(s.OutcomeError)
		s.Notes, s.Announce, s.RequesterError = o.redactText(s.Notes), o.redactText(s.Announce), o.redactText(s.RequesterError)
		c.Spawn = &s
	}
	return &c
}

// maskRuns masks every record of a listing.
func (o *Ops) maskRuns(rs []*RunRecord) {
	if !o.masking() {
		return
	}
	for i, r := range rs {
		rs[i] = o.maskRunRecord(r)
	}
}

// maskShow masks the free texts of a shown session: its label and display
// name, every string of its entry, and the task and summary of its runs.
func (o *Ops) maskShow(res *ShowResult) {
	if res == nil || !o.masking() {
		return
	}
	res.Label, res.DisplayName = o.redactText(res.Label), o.redactText(res.DisplayName)
	if len(res.Entry) > 0 {
		if out, ok := o.redactorFor().MaskMessage(res.Entry); ok {
			res.Entry = out
		}
	}
	for i := range res.Runs {
		res.Runs[i].Task = o.redactText(res.Runs[i].Task)
		res.Runs[i].Summary = o.redactText(res.Runs[i].Summary)
	}
}
