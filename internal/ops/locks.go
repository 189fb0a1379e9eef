package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostdoc"
	"github.com/openclaw/sessions/internal/hostread"
)

// The kinds of lock.
const (
	LockStore      = hostread.LockStore      // <store>.lock: OpenClaw's sessions.json lock
	LockTranscript = hostread.LockTranscript // <transcript>.jsonl.lock: OpenClaw's session write lock
	LockRunner     = hostread.LockRunner     // a sessions runner's flock on <runId>.lock
)

// The documents of `sessions locks --json` (internal/hostdoc).
type (
	LocksResult = hostdoc.LocksResult // the document
	Lock        = hostdoc.Lock        // one held lock
)

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
	return hostread.LocksDoc(held), nil
}
