package backend

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/runner"
	"github.com/openclaw/sessions/internal/runs"
)

// ArchiveSweeper archives the host's sub-agent children whose archive time
// has come (agents.defaults.subagents.archiveAfterMinutes after their
// creation; internal/archive): the archive index and the stores are the
// state dir's, so only a host that holds it can (local.Local).
type ArchiveSweeper interface {
	SweepArchive(ctx context.Context, q SweepAsk) (*SweepAnswer, error)
}

// SweepAsk is an archive sweep.
type SweepAsk struct {
	// LockTimeout bounds the waits for the index flock and OpenClaw's
	// store lock.
	LockTimeout time.Duration
	// IfDue: read the archive index first and sweep only when a child is
	// due (the sweep every invocation makes in passing). A state dir that
	// does not open is then no error and nothing is done: the invocation
	// reports it itself.
	IfDue bool
}

// SweepAnswer is what a sweep did: its report (nil when nothing was
// swept), or why an IfDue sweep was skipped (the index could not be read).
type SweepAnswer struct {
	Report  *archive.Report
	Skipped error
}

// RunExecutor performs a run recorded on the host to its end, as the
// detached runner that send and spawn start (internal/runner): the host
// opens its state dir and its run store, and hands setup the run's record
// (nil when the host holds none: Execute reports that) and the runner over
// them; setup says where the run's turns and writes go (the gateways the
// run's record names, the invocation's clock, log and lock timeout), and
// an error of setup ends it before any step.
type RunExecutor interface {
	ExecuteRun(ctx context.Context, runID string, setup func(rec *runs.Record, r *runner.Runner) error) error
}
