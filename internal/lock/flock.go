package lock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/gofrs/flock"

	"github.com/openclaw/sessions/internal/apperr"
)

// Flock is one of our own, Go-only advisory locks (flock(2) via
// gofrs/flock). It serialises `sessions` processes (e.g. one turn at a time
// per session) and tells a live runner from a dead one: the kernel drops the
// lock when the holder dies, so there are no stale locks. The lock file is
// created if missing and never deleted.
//
// Never point a Flock at one of OpenClaw's lock names (sessions.json.lock,
// <id>.jsonl.lock): flock does not exclude OpenClaw's O_EXCL lock files
// (guides/DEPS.md §1.3). Use a sidecar name of our own.
//
// flock locks belong to an open file description, so two Flock values on the
// same path exclude each other even inside one process; one Flock value must
// not be shared between goroutines that each want the lock.
type Flock struct {
	path string
	fl   *flock.Flock
}

// NewFlock returns an unlocked Flock on path.
func NewFlock(path string) *Flock {
	return &Flock{path: path, fl: flock.New(path, flock.SetPermissions(0o600))}
}

// Path is the lock file's path.
func (f *Flock) Path() string { return f.path }

// TryLock takes the lock if it is free, without waiting.
func (f *Flock) TryLock() (bool, error) {
	ok, err := f.fl.TryLock()
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", f.path, err)
	}
	return ok, nil
}

// flockPoll is how often Lock retries.
const flockPoll = 25 * time.Millisecond

// Lock waits for the lock until timeout (timeout <= 0: no limit besides ctx)
// or ctx is done. On timeout it returns apperr.Lockf (exit 11) naming the
// holder's pid when the kernel tells us (Linux /proc/locks).
func (f *Flock) Lock(ctx context.Context, timeout time.Duration) error {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		ok, err := f.TryLock()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		d := flockPoll
		if !deadline.IsZero() {
			if !time.Now().Before(deadline) {
				who := "another process"
				if pid := FlockHolder(f.path); pid > 0 {
					who = fmt.Sprintf("pid %d", pid)
				}
				return apperr.Lockf("%s is locked by %s; gave up after %s", f.path, who, timeout)
			}
			d = capToDeadline(d, deadline)
		}
		if err := sleepCtx(ctx, d); err != nil {
			return fmt.Errorf("waiting for %s: %w", f.path, err)
		}
	}
}

// Unlock releases the lock and closes the file (the file stays on disk).
func (f *Flock) Unlock() error {
	if err := f.fl.Unlock(); err != nil {
		return fmt.Errorf("unlock %s: %w", f.path, err)
	}
	return nil
}

// IsLocked reports whether some process (this one included, through another
// Flock) holds path's flock right now. It probes with a non-blocking shared
// lock that it drops at once, and does not create path: a missing file is
// not locked. (The probe can make a concurrent TryLock fail for that instant.)
func IsLocked(path string) (bool, error) {
	probe := flock.New(path, flock.SetFlag(os.O_RDONLY))
	ok, err := probe.TryRLock()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("probe lock %s: %w", path, err)
	}
	if ok {
		_ = probe.Unlock()
		return false, nil
	}
	return true, nil
}
