package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostread"
)

// DoctorFinding is one problem doctor found (and maybe fixed).
type DoctorFinding struct {
	Severity   string `json:"severity"`
	Check      string `json:"check"` // stable identifier, e.g. "lock.dead"
	Path       string `json:"path"`
	AgentID    string `json:"agentId,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
	// Message says what it is and what it means.
	Message string `json:"message"`
	// Fix is the exact command that repairs it: ours (`sessions doctor
	// --fix`) when Fixable, else OpenClaw's own or a shell command.
	Fix string `json:"fix"`
	// Fixable: `sessions doctor --fix` repairs it.
	Fixable bool `json:"fixable"`
	// Fixed is set by Fix: what was done.
	Fixed string `json:"fixed,omitempty"`
	// FixError is set by Fix when the repair failed or was deferred.
	FixError string `json:"fixError,omitempty"`
}

// DoctorCounts are the findings by severity, and how many --fix can repair.
type DoctorCounts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	Fixable  int `json:"fixable"`
}

// The severities of a finding, and the command that fixes the fixable ones.
const (
	DoctorSevError   = hostread.DoctorSevError
	DoctorSevWarning = hostread.DoctorSevWarning
	DoctorFixCommand = hostread.DoctorFixCommand
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
	h, err := o.readHost(ReadDoctor)
	if err != nil {
		return nil, err
	}
	a, err := h.(backend.Doctor).Doctor(ctx, hostread.DoctorQuery{Fix: q.Fix, Now: o.Now(), LockTimeout: o.cfg.LockTimeout})
	if err != nil {
		return nil, err
	}
	res := &DoctorResult{Status: "ok", StateDir: a.StateDir, Fix: q.Fix, Fixed: a.Fixed, Counts: DoctorCounts(a.Counts),
		Findings: doctorFindings(a), Size: a.Size}
	if a.Outcome != nil {
		res.Status, res.Error = "error", a.Outcome.Error()
		res.Outcome = a.Outcome.AfterOutput()
	}
	return res, nil
}

// doctorFindings are the documents of a check's findings (never nil).
func doctorFindings(a *hostread.DoctorAnswer) []DoctorFinding {
	out := make([]DoctorFinding, len(a.Findings))
	for i, f := range a.Findings {
		out[i] = DoctorFinding{Severity: f.Severity, Check: f.Check, Path: f.Path, AgentID: f.AgentID, SessionKey: f.SessionKey,
			Message: f.Message, Fix: f.Fix, Fixable: f.Fixable, Fixed: f.Fixed, FixError: f.FixError}
	}
	return out
}
