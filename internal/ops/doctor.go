package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostdoc"
	"github.com/openclaw/sessions/internal/hostread"
)

// The severities of a finding, and the command that fixes the fixable ones.
const (
	DoctorSevError   = hostread.DoctorSevError
	DoctorSevWarning = hostread.DoctorSevWarning
	DoctorFixCommand = hostread.DoctorFixCommand
)

// The documents of `sessions doctor --json` (internal/hostdoc).
type (
	DoctorResult  = hostdoc.DoctorResult  // the document
	DoctorFinding = hostdoc.DoctorFinding // one problem doctor found (and maybe fixed)
	DoctorCounts  = hostdoc.DoctorCounts  // the findings by severity, and how many --fix can repair
)

// DoctorRequest is what a check of the state dir asks for.
type DoctorRequest struct {
	// Fix repairs what is safe without OpenClaw, each under OpenClaw's own
	// lock (stale locks, orphan transcripts, dead runs, due sub-agents).
	Fix bool
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
	a, err := h.(backend.Doctor).Doctor(ctx, hostread.DoctorQuery{Fix: q.Fix, Now: o.Now(), LockTimeout: o.cfg.LockTimeout,
		Debug: func(line string) { o.debug(line) }})
	if err != nil {
		return nil, err
	}
	return a.Doc(q.Fix), nil
}
