package hostread

import (
	"cmp"
	"github.com/openclaw/sessions/internal/hostdoc"
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

// Lock is one lock held.
type Lock struct {
	Kind       string
	Path       string
	AgentID    string
	SessionKey string
	RunID      string
	PID        int
	Since      int64 // ms since the epoch
	AgeSeconds int64
	Alive      bool
	Stale      bool
	// Type is set when the lock path is not a regular file ("fifo",
	// "symlink", "directory", …): it is reported and never opened.
	Type string
}

// Locks are the locks held right now under the state dir of s, oldest
// first, touching none of them: OpenClaw's store and transcript locks of
// every agent the requester may see, and the runner locks of our own runs.
func Locks(s *state.State, now time.Time) []Lock {
	out := LockRows(s.HeldLocks(), now)
	out = append(out, RunnerLocks(s, now)...)
	slices.SortStableFunc(out, func(a, b Lock) int {
		return cmp.Or(cmp.Compare(a.Since, b.Since), cmp.Compare(a.Path, b.Path))
	})
	return out
}

// LockRows are the rows of OpenClaw's locks held now (state.HeldLocks),
// each aged at now.
func LockRows(found []state.HeldLock, now time.Time) []Lock {
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

// RunnerLocks lists the runs whose runner holds its flock: only runs not
// yet ended are probed (a runner's lock file stays after it exits).
func RunnerLocks(s *state.State, now time.Time) []Lock {
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

// LocksDoc is the document of the locks held.
func LocksDoc(held []Lock) *hostdoc.LocksResult {
	out := make([]hostdoc.Lock, len(held))
	for i, l := range held {
		out[i] = hostdoc.Lock(l)
	}
	return &hostdoc.LocksResult{Count: len(held), Locks: out}
}
