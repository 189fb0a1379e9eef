package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostread"
)

// The kinds of lock.
const (
	LockStore      = hostread.LockStore      // <store>.lock: OpenClaw's sessions.json lock
	LockTranscript = hostread.LockTranscript // <transcript>.jsonl.lock: OpenClaw's session write lock
	LockRunner     = hostread.LockRunner     // a sessions runner's flock on <runId>.lock
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
	h, err := o.readHost(ReadLocks)
	if err != nil {
		return nil, err
	}
	held, err := h.(backend.LockLister).Locks(ctx)
	if err != nil {
		return nil, err
	}
	return &LocksResult{Count: len(held), Locks: lockRows(held)}, nil
}

// lockRows are the rows of the locks held.
func lockRows(held []hostread.Lock) []Lock {
	out := make([]Lock, len(held))
	for i, l := range held {
		out[i] = Lock(l)
	}
	return out
}
