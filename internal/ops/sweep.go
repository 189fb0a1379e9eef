package ops

import (
	"context"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/backend"
)

// SweepReport is what an archive sweep did (`sessions runs --sweep
// --json`): the children archived, those deferred, how many are pending
// and when the next is due.
type SweepReport = archive.Report

// SweepRequest is an archive sweep.
type SweepRequest struct {
	// Auto is the sweep every invocation makes in passing: it reads only
	// the small archive index when nothing is due, waits briefly for locks
	// (a busy one is retried by the next invocation) and never fails —
	// problems are logged (debug, or a warning) and the report is nil.
	Auto bool
}

// autoSweepLockTimeout bounds the automatic sweep's waits for the index
// flock and OpenClaw's store lock: a busy lock is simply retried by the
// next invocation.
const autoSweepLockTimeout = 150 * time.Millisecond

// Sweep archives the sub-agent children whose archive time has come
// (agents.defaults.subagents.archiveAfterMinutes after their creation;
// there is no daemon, so invocations do it): each leaves its store (JSON
// era: deleted, transcript renamed .deleted.<ts>; 2026.8+ SQLite store:
// archived), its run record notes it, and it leaves the index. A child
// whose runner is alive, or whose store is busy, is deferred. The sweep
// works on this host's state dir.
func (o *Ops) Sweep(ctx context.Context, q SweepRequest) (*SweepReport, error) {
	v, err := o.sweep(ctx, q)
	return deliver(o, v, err)
}

// sweep is Sweep before the agent boundary: this host's (its state dir's
// archive index and stores, backend.ArchiveSweeper); the automatic sweep's
// policy — never fail, a busy lock retried by the next invocation — is
// here.
func (o *Ops) sweep(ctx context.Context, q SweepRequest) (*SweepReport, error) {
	h := o.where.LocalHost()
	if !q.Auto {
		a, err := h.SweepArchive(ctx, backend.SweepAsk{LockTimeout: o.cfg.LockTimeout})
		if err != nil {
			return nil, err
		}
		return a.Report, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	a, err := h.SweepArchive(ctx, backend.SweepAsk{LockTimeout: autoSweepLockTimeout, IfDue: true})
	if err != nil {
		o.debug("archive sweep deferred", "err", err)
		return nil, nil
	}
	if a.Skipped != nil {
		o.cfg.Log.Warn("archive sweep skipped", "err", a.Skipped)
		return nil, nil
	}
	rep := a.Report
	if rep == nil {
		return nil, nil
	}
	for _, a := range rep.Archived {
		o.debug("archived sub-agent session", "key", a.ChildKey, "run", a.RunID, "renamed", strings.Join(a.Renamed, ","))
	}
	for _, d := range rep.Deferred {
		o.debug("archive deferred", "key", d.ChildKey, "run", d.RunID, "reason", d.Reason)
	}
	return rep, nil
}
