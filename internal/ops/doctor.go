package ops

import (
	"context"
	"fmt"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/doctor"
)

// DoctorFinding is one problem doctor found (and maybe fixed).
type DoctorFinding = doctor.Finding

// DoctorCounts are the findings by severity, and how many --fix can repair.
type DoctorCounts = doctor.Counts

// The severities of a finding, and the command that fixes the fixable ones.
const (
	DoctorSevError   = doctor.SevError
	DoctorSevWarning = doctor.SevWarning
	DoctorFixCommand = doctor.FixCommand
)

// DoctorRequest is what a check of the state dir asks for.
type DoctorRequest struct {
	// Fix repairs what is safe without OpenClaw, each under OpenClaw's own
	// lock (stale locks, orphan transcripts, dead runs, due sub-agents).
	Fix bool
}

// DoctorResult is the document of `sessions doctor --json`.
type DoctorResult struct {
	Status   string          `json:"status"` // "ok" (nothing left to act on) | "error"
	Error    string          `json:"error,omitempty"`
	StateDir string          `json:"stateDir"`
	Fix      bool            `json:"fix"`
	Fixed    int             `json:"fixed"`
	Counts   DoctorCounts    `json:"counts"`
	Findings []DoctorFinding `json:"findings"`

	// Size says what was checked: agents, session entries, transcripts.
	Size string `json:"-"`
	// Outcome is the error the check ends with once the document is shown
	// (nil: nothing left to act on): exit 10 when a store cannot be read,
	// 1 when errors or warnings are left. Error is its message.
	Outcome error `json:"-"`
}

// doctorUnreadable are the checks that make the outcome exit 10.
var doctorUnreadable = map[string]bool{"store.unreadable": true, "store.corrupt": true, "sqlite.unreadable": true}

// Doctor checks this host's state dir (every agent's stores, transcripts,
// locks, SQLite stores, and our own runs) and, with Fix, repairs what is
// safe. Only the host operator may: it reads every agent's state. Not
// through a gateway (exit 2).
func (o *Ops) Doctor(ctx context.Context, q DoctorRequest) (*DoctorResult, error) {
	v, err := o.doctor(ctx, q)
	return deliver(o, v, err)
}

// doctor is Doctor before the agent boundary.
func (o *Ops) doctor(ctx context.Context, q DoctorRequest) (*DoctorResult, error) {
	if err := o.refuseGateway("doctor"); err != nil {
		return nil, err
	}
	s, err := o.openState()
	if err != nil {
		return nil, err
	}
	if !s.Req.Operator() {
		return nil, apperr.Forbiddenf("sessions doctor is for the host operator: it reads every agent's state (run it without --as and OPENCLAW_SESSION_KEY)")
	}
	now := o.Now()
	snap := doctor.Collect(s, now, doctor.Limits{})
	res := &DoctorResult{Status: "ok", StateDir: s.Dir.Path, Fix: q.Fix, Findings: doctor.Check(snap, s.GlobalScope()), Size: doctor.Size(snap)}
	if q.Fix {
		doctor.Fix(ctx, s, res.Findings, now, doctor.FixOptions{LockTimeout: o.cfg.LockTimeout})
		for _, x := range res.Findings {
			if x.Fixed != "" {
				res.Fixed++
			}
		}
	}
	if res.Findings == nil {
		res.Findings = []DoctorFinding{}
	}
	res.Counts = doctor.Count(res.Findings)
	var outcome *apperr.Error
	for _, x := range res.Findings {
		if x.Fixed == "" && doctorUnreadable[x.Check] {
			outcome = apperr.Statef("%s cannot be read (%s); %s", x.Path, x.Check, doctorSummary(res.Counts))
			break
		}
	}
	if outcome == nil && doctor.Open(res.Findings) {
		outcome = apperr.Errorf("%s", doctorSummary(res.Counts))
	}
	if outcome != nil {
		res.Status, res.Error = "error", outcome.Error()
		res.Outcome = outcome.AfterOutput()
	}
	return res, nil
}

func doctorSummary(c DoctorCounts) string {
	s := fmt.Sprintf("%d error(s), %d warning(s) left", c.Errors, c.Warnings)
	if c.Fixable > 0 {
		s += fmt.Sprintf("; %d fixable with %s", c.Fixable, doctor.FixCommand)
	}
	return s
}
