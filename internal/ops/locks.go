package ops

import (
	"cmp"
	"context"
	"os"
	"slices"
	"time"

	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
)

// The kinds of lock.
const (
	LockStore      = "store"      // <store>.lock: OpenClaw's sessions.json lock
	LockTranscript = "transcript" // <transcript>.jsonl.lock: OpenClaw's session write lock
	LockRunner     = "runner"     // a sessions runner's flock on <runId>.lock
)

// Lock is one held lock (a row of `sessions locks --json`).
type Lock struct {
	Kind       string `json:"kind"`
	Path       string `json:"path"`
	AgentID    string `json:"agentId,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
	RunID      string `json:"runId,omitempty"`
	PID        int    `json:"pid,omitempty"`
	Since      int64  `json:"since,omitempty"` // ms since the epoch
	AgeSeconds int64  `json:"ageSeconds"`
	Alive      bool   `json:"alive"`
	Stale      bool   `json:"stale"`
	// Type is set when the lock path is not a regular file ("fifo",
	// "symlink", "directory", …): it is reported and never opened.
	Type string `json:"type,omitempty"`
}

// LocksResult is the document of `sessions locks --json`.
type LocksResult struct {
	Count int    `json:"count"`
	Locks []Lock `json:"locks"`
}

// Locks lists the locks held right now under this host's state dir,
// oldest first, touching none of them: OpenClaw's store and transcript locks
// of every agent the requester may see, and the runner locks of our own
// runs. Not through a gateway (exit 2).
func (o *Ops) Locks(ctx context.Context) (*LocksResult, error) {
	v, err := o.locks(ctx)
	return deliver(o, v, err)
}

// locks is Locks before the agent boundary.
func (o *Ops) locks(ctx context.Context) (*LocksResult, error) {
	if err := o.refuseGateway("locks"); err != nil {
		return nil, err
	}
	s, err := o.openState()
	if err != nil {
		return nil, err
	}
	now := o.Now()
	res := &LocksResult{Locks: []Lock{}}
	res.Locks = append(res.Locks, openclawLocks(s, now)...)
	res.Locks = append(res.Locks, runnerLocks(s, now)...)
	slices.SortStableFunc(res.Locks, func(a, b Lock) int {
		return cmp.Or(cmp.Compare(a.Since, b.Since), cmp.Compare(a.Path, b.Path))
	})
	res.Count = len(res.Locks)
	return res, nil
}

// openclawLocks are OpenClaw's store and transcript locks in the stores'
// directories of every agent the requester may see.
func openclawLocks(s *state.State, now time.Time) []Lock {
	return lockRows(s.HeldLocks(), now)
}

// lockRows are the rows of OpenClaw's locks held now (state.HeldLocks),
// each aged at now.
func lockRows(found []state.HeldLock, now time.Time) []Lock {
	out := make([]Lock, 0, len(found))
	for _, f := range found {
		h := f.Holder
		l := Lock{Kind: LockTranscript, Path: h.Path, AgentID: f.Agent, SessionKey: f.SessionKey, PID: h.PID, Alive: h.Alive, Stale: h.Stale, Type: h.Kind}
		if f.Store {
			l.Kind = LockStore
		}
		if !h.Since.IsZero() {
			l.Since = h.Since.UnixMilli()
			l.AgeSeconds = max(0, int64(now.Sub(h.Since).Seconds()))
		}
		out = append(out, l)
	}
	return out
}

// runnerLocks lists the runs whose runner holds its flock: only runs not yet
// ended are probed (a runner's lock file stays after it exits).
func runnerLocks(s *state.State, now time.Time) []Lock {
	rs := runs.Open(s.Dir.Path)
	recs, err := rs.List()
	if err != nil {
		return nil
	}
	var out []Lock
	for _, r := range recs {
		if runs.Terminal(r.Status) || !rs.RunnerAlive(r.RunID) {
			continue
		}
		p := rs.LockPath(r.RunID)
		l := Lock{Kind: LockRunner, Path: p, AgentID: r.Target.AgentID, RunID: r.RunID, Alive: true}
		l.SessionKey = cmp.Or(r.Target.DisplayKey, r.Target.Key)
		l.PID = rs.RunnerHolder(r.RunID)
		if l.PID == 0 {
			l.PID = r.RunnerPID
		}
		since := cmp.Or(r.StartedAt, r.CreatedAt)
		if fi, err := os.Stat(p); err == nil && since == 0 {
			since = fi.ModTime().UnixMilli()
		}
		l.Since = since
		l.AgeSeconds = max(0, int64(now.Sub(time.UnixMilli(since)).Seconds()))
		out = append(out, l)
	}
	return out
}
