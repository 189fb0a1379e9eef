// Package lock implements the two lock-file protocols of OpenClaw 2026.1.30
// (format §3.1 store lock, §3.6 transcript lock) so that `sessions` excludes a
// live OpenClaw writing the same files, plus our own Go-only flock locks.
//
// OpenClaw's locks are O_EXCL lock *files*: whoever manages to create
// `<file>.lock` holds the lock until it removes the file. flock(2) does not
// interoperate with that (guides/DEPS.md §1.3), so AcquireStore and
// AcquireTranscript speak the file protocol directly. The only deliberate
// differences from OpenClaw are safety improvements that never make us take a
// lock OpenClaw would consider held:
//
//   - The lock file appears with its payload already in it: we write a temp
//     file in the same directory and link(2) it to the lock name (link fails
//     with EEXIST exactly like O_CREAT|O_EXCL). OpenClaw 2026.1.30 creates the
//     file first and writes afterwards, and its transcript lock deletes a lock
//     file it finds empty; a lock of ours can never be seen empty.
//   - We wait on an empty transcript lock file (a peer between create and
//     write) instead of deleting it, until its mtime is a few seconds old.
//   - Release removes the lock file only if it is still our inode. OpenClaw
//     unlinks unconditionally; if it had evicted our lock as stale (we held it
//     for more than 30 s) and taken its own, an unconditional unlink would
//     delete OpenClaw's live lock. We keep our lock file open while held so
//     its inode number cannot be reused by a new lock file, which makes the
//     same-inode test reliable.
//   - Held.Check tells whether the lock is still ours. OpenClaw's transcript
//     lock removes the lock path by name when its read of the payload fails,
//     which races with a holder releasing and the next one re-creating the
//     file (seen in interop runs: about once per 15 runs of 900 contended
//     appends). Writers call Check right before their committing write and
//     start over if the lock was lost.
//   - Before evicting a stale or dead lock we re-check that the lock path
//     still names the inode we judged, so we do not delete a fresh lock that
//     another waiter created in the meantime.
//   - A store lock whose payload has OpenClaw's shape and names a pid that does
//     not exist on this host (kill(pid, 0) → ESRCH) is evicted at once instead
//     of after 30 s. EPERM means the process exists. Caveat: a holder in
//     another PID namespace (a container sharing the state dir) looks dead;
//     OpenClaw's own transcript lock has the same limitation.
//
// None of these locks is re-entrant: a second acquisition of the same lock in
// the same process waits for the first to be released (our own pid is alive),
// which is also what makes them exclude goroutines of one process.
package lock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/openclaw/sessions/internal/fsutil"
)

// Options tunes an acquisition. Zero values mean the protocol defaults.
type Options struct {
	// Timeout is how long to wait for the lock (default 10 s). At least one
	// attempt is always made.
	Timeout time.Duration
	// Poll is the store lock's poll interval (default 25 ms) and the unit of
	// the transcript lock's back-off, min(20*Poll, Poll*attempt) (default 50 ms,
	// i.e. min(1000, 50*attempt) ms).
	Poll time.Duration
	// Stale is the age after which a lock is evicted: by the lock file's mtime
	// for the store lock (default 30 s), by the payload's createdAt for the
	// transcript lock (default 30 min).
	Stale time.Duration
	// Now replaces time.Now for payload timestamps and age checks (tests).
	// Waiting and the timeout always use the real monotonic clock.
	Now func() time.Time
}

// Protocol defaults (format §3.1, §3.6).
const (
	DefaultTimeout         = 10 * time.Second
	DefaultStorePoll       = 25 * time.Millisecond
	DefaultStoreStale      = 30 * time.Second
	DefaultTranscriptStep  = 50 * time.Millisecond
	DefaultTranscriptStale = 30 * time.Minute
	// EmptyGrace is how long an empty transcript lock file is taken to be a
	// peer between open("wx") and its payload write, and waited on. An empty
	// file older than this is a crashed writer's and is evicted.
	EmptyGrace = 5 * time.Second
)

func (o Options) withDefaults(poll, stale time.Duration) Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Poll <= 0 {
		o.Poll = poll
	}
	if o.Stale <= 0 {
		o.Stale = stale
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Held is an acquired lock.
type Held interface {
	// Release removes the lock file if it is still ours. It returns an error
	// wrapping ErrLockLost when the file was removed or replaced by someone
	// else while we held it (the critical section may then have raced with
	// another writer; callers normally log this as a warning). Release is
	// idempotent.
	Release() error
	// Check reports whether the lock file is still ours: nil, or an error
	// wrapping ErrLockLost when it was removed or replaced. OpenClaw 2026.1.30
	// can delete a live lock by name (its transcript lock deletes the path when
	// a read of the payload fails, e.g. because the previous holder had just
	// released and we had just re-created it), so call Check right before the
	// write or rename that commits the critical section, and start over
	// (Release, acquire again, re-read) if it fails.
	Check() error
	// Path is the lock file's path.
	Path() string
	// Acquired is when the lock was taken.
	Acquired() time.Time
}

// ErrLockLost reports that a lock file we held was removed or replaced by
// another process (evicted as stale, or deleted by OpenClaw's racy check).
var ErrLockLost = errors.New("lock file was removed or replaced by another process while held")

// HolderInfo describes the current holder of an OpenClaw lock file.
type HolderInfo struct {
	Path  string    // the lock file
	PID   int       // holder pid from the payload; 0 when unknown
	Since time.Time // payload timestamp (startedAt / createdAt), else the file's mtime
	Alive bool      // PID exists on this host (kill(pid, 0) succeeds or EPERM)
	Stale bool      // old enough to be evicted by OpenClaw's age rule
	Raw   string    // the payload as found
	// Kind is FileKind of a lock path that is not a regular file (a FIFO, a
	// symlink, a directory…): it was not opened; PID is 0, Alive and Stale
	// false.
	Kind string
}

// lockFile is one read of a lock file: the inode and its contents, taken from
// the same open file so they belong together. The file stays open until
// close, which pins the inode: while we hold it open its number cannot be
// reused by a new lock file, so os.SameFile against fi is a reliable
// identity check.
type lockFile struct {
	f    *os.File
	fi   os.FileInfo
	raw  []byte
	kind string // FileKind of a lock path that is not a regular file (never opened)
}

func (lf *lockFile) close() {
	if lf != nil && lf.f != nil {
		lf.f.Close()
		lf.f = nil
	}
}

// readLock opens and reads a lock file. (nil, nil) when it does not exist.
// The caller must close the result.
//
// A lock path that is not a regular file (a FIFO, a symlink, a directory, a
// device or socket) is never opened — opening a FIFO blocks, a symlink may
// point anywhere: the result then has only fi (from lstat) and Kind names
// what the path is. The open itself uses O_NOFOLLOW|O_NONBLOCK (openNoFollow;
// Unix only) and re-checks the type, so a path swapped between lstat and
// open is not read either.
func readLock(path string) (*lockFile, error) {
	lst, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	if k := FileKind(lst.Mode()); k != "" {
		return &lockFile{fi: lst, kind: k}, nil
	}
	// Non-blocking, and refused unless regular on the descriptor: a FIFO
	// swapped in after the Lstat above is never waited on.
	f, err := fsutil.OpenFileRegular(path, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if lst2, lerr := os.Lstat(path); lerr == nil {
			if k := FileKind(lst2.Mode()); k != "" {
				return &lockFile{fi: lst2, kind: k}, nil
			}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if k := FileKind(fi.Mode()); k != "" {
		f.Close()
		return &lockFile{fi: fi, kind: k}, nil
	}
	raw, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		f.Close()
		return nil, err
	}
	return &lockFile{f: f, fi: fi, raw: raw}, nil
}

// FileKind names what a lock path is when it is not a regular file:
// "symlink", "fifo", "directory", "socket", "device" or "irregular"; "" for
// a regular file.
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "device"
	}
	return "irregular"
}

// createLinked makes path exist with payload as its content in one step:
// the payload goes into a temp file in the same directory, which is then
// hard-linked to path (EEXIST when path exists, like O_EXCL) and unlinked.
// It returns the open temp file (same inode as path) and its FileInfo.
// Where hard links are not supported it falls back to O_CREAT|O_EXCL + write.
//
// On Linux the temp file is an unnamed O_TMPFILE inode (createTmpfile), so
// a process SIGKILLed while creating its lock leaves no temp file behind.
func createLinked(path string, payload []byte) (*os.File, os.FileInfo, error) {
	if f, fi, handled, err := createTmpfile(path, payload); handled {
		return f, fi, err
	}
	dir, base := filepath.Split(path)
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.%d.%s.tmp", base, os.Getpid(), randHex(6)))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*os.File, os.FileInfo, error) {
		f.Close()
		os.Remove(tmp)
		return nil, nil, err
	}
	if _, err := f.Write(payload); err != nil {
		return fail(err)
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	err = os.Link(tmp, path)
	if err != nil && linkUnsupported(err) {
		f.Close()
		os.Remove(tmp)
		return createExcl(path, payload)
	}
	if err != nil {
		return fail(err)
	}
	os.Remove(tmp)
	return f, fi, nil
}

// createExcl is OpenClaw's own O_CREAT|O_EXCL + write, for filesystems
// without hard links.
func createExcl(path string, payload []byte) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		_, err = f.Write(payload)
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, nil, err
	}
	return f, fi, nil
}

func linkUnsupported(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	switch errno {
	case syscall.EPERM, syscall.ENOTSUP, syscall.ENOSYS, syscall.EMLINK:
		return true
	}
	return errno == syscall.EOPNOTSUPP || linkUnsupportedErrno(errno)
}

// removeIfSame removes path if it still names the inode fi. It reports
// whether the caller should retry at once: true when the file was removed or
// is already gone or replaced; false (with the error) when removal failed.
func removeIfSame(path string, fi os.FileInfo) (bool, error) {
	st, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return true, nil
		}
		return false, err
	}
	if !os.SameFile(st, fi) {
		return true, nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, nil
}

// stillOurs checks that path still names the inode fi.
func stillOurs(path string, fi os.FileInfo) error {
	st, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", path, ErrLockLost)
		}
		return err
	}
	if !os.SameFile(st, fi) {
		return fmt.Errorf("%s: %w", path, ErrLockLost)
	}
	return nil
}

// releaseFile removes path if it is still the inode fi.
func releaseFile(path string, fi os.FileInfo) error {
	if err := stillOurs(path, fi); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", path, ErrLockLost)
		}
		return err
	}
	return nil
}

// sleepCtx sleeps for d, or until ctx is done (returning its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// capToDeadline shortens d so a sleep does not overrun the deadline.
func capToDeadline(d time.Duration, deadline time.Time) time.Duration {
	if rem := time.Until(deadline); rem < d {
		if rem < time.Millisecond {
			return time.Millisecond
		}
		return rem
	}
	return d
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// mkdirAll creates a lock's directory. 0700: these directories hold session
// data (OpenClaw would use 0777 &^ umask; we prefer private).
func mkdirAll(dir string) error { return os.MkdirAll(dir, 0o700) }

func fmtSecs(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

type held struct {
	path     string
	fi       os.FileInfo
	f        *os.File // our lock file, open while held: pins the inode (see lockFile)
	acquired time.Time
	// onRelease, if set, is told the lock path and time of the release
	// (the store lock's turns, giveway.go).
	onRelease func(path string, at time.Time)

	mu       sync.Mutex
	released bool
}

func (h *held) Path() string        { return h.path }
func (h *held) Acquired() time.Time { return h.acquired }

func (h *held) Check() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		return fmt.Errorf("%s: lock already released", h.path)
	}
	return stillOurs(h.path, h.fi)
}

func (h *held) Release() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		return nil
	}
	h.released = true
	// Check and remove while our descriptor is still open, so the inode
	// number cannot have been reused by someone else's lock file.
	err := releaseFile(h.path, h.fi)
	if h.f != nil {
		if cerr := h.f.Close(); err == nil {
			err = cerr
		}
		h.f = nil
	}
	if h.onRelease != nil {
		h.onRelease(h.path, time.Now())
	}
	return err
}
