package local

import (
	"context"

	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/runner"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
)

// SweepArchive archives the children of this host's state dir whose
// archive time has come: each leaves its store (JSON era: deleted, its
// transcript renamed .deleted.<ts>; 2026.8+ SQLite store: archived), its
// run record notes it, and it leaves the index (archive.Sweep).
func (l *Local) SweepArchive(ctx context.Context, q backend.SweepAsk) (*backend.SweepAnswer, error) {
	s, err := l.State()
	if err != nil {
		if q.IfDue {
			return &backend.SweepAnswer{}, nil
		}
		return nil, err
	}
	if q.IfDue {
		due, err := archive.Due(s.Dir.Path, l.now())
		if err != nil {
			return &backend.SweepAnswer{Skipped: err}, nil
		}
		if !due {
			return &backend.SweepAnswer{}, nil
		}
	}
	rep, err := archive.Sweep(ctx, s, l.now(), archive.SweepOptions{LockTimeout: q.LockTimeout, Remove: sessionwrite.LocalRemover(s)})
	if err != nil {
		return nil, err
	}
	return &backend.SweepAnswer{Report: rep}, nil
}

// ExecuteRun performs the run runID recorded in this host's state dir
// (backend.RunExecutor).
func (l *Local) ExecuteRun(ctx context.Context, runID string, setup func(rec *runs.Record, r *runner.Runner) error) error {
	s, err := l.State()
	if err != nil {
		return err
	}
	rs := runs.Open(s.Dir.Path)
	rec, err := rs.Load(runID)
	if err != nil {
		rec = nil // a missing run is Execute's to report
	}
	r := &runner.Runner{State: s, Runs: rs}
	if err := setup(rec, r); err != nil {
		return err
	}
	return r.Execute(ctx, runID)
}
