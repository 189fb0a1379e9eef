package lock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
)

// isoMillis is JavaScript's Date.prototype.toISOString layout.
const isoMillis = "2006-01-02T15:04:05.000Z"

// transcriptPayload is OpenClaw's transcript-lock payload,
// JSON.stringify({pid, createdAt: new Date().toISOString()}, null, 2).
func transcriptPayload(pid int, now time.Time) []byte {
	return fmt.Appendf(nil, "{\n  \"pid\": %d,\n  \"createdAt\": %q\n}", pid, now.UTC().Format(isoMillis))
}

// TranscriptLockPath is the lock file OpenClaw uses for a transcript:
// <realpath(dir(abs(file)))>/<base>.lock (the unresolved directory when
// realpath fails, e.g. because it does not exist yet).
func TranscriptLockPath(transcriptPath string) (string, error) {
	abs, err := filepath.Abs(transcriptPath)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Join(dir, filepath.Base(abs)) + ".lock", nil
}

// AcquireTranscript takes OpenClaw's transcript write lock for
// transcriptPath, exactly as acquireSessionWriteLock does (format §3.6): the
// lock file <realdir>/<base>.lock holds the pretty-printed payload
// {"pid", "createdAt"}; a lock is evicted at once when its payload is invalid,
// its createdAt is older than opts.Stale (default 30 min) or unparsable, or
// its pid does not exist (kill(pid,0) → ESRCH; EPERM counts as alive, unlike
// OpenClaw); otherwise we back off min(1000, 50*attempt) ms until
// opts.Timeout (default 10 s), then fail with apperr.Lockf (exit 11). An empty
// lock file younger than EmptyGrace is a peer between create and write and is
// waited on, not deleted. The lock file's descriptor stays open while held.
func AcquireTranscript(ctx context.Context, transcriptPath string, opts Options) (Held, error) {
	o := opts.withDefaults(DefaultTranscriptStep, DefaultTranscriptStale)
	abs, err := filepath.Abs(transcriptPath)
	if err != nil {
		return nil, apperr.Statef("transcript path %s: %w", transcriptPath, err)
	}
	dir := filepath.Dir(abs)
	if err := mkdirAll(dir); err != nil {
		return nil, apperr.Statef("cannot create transcript directory %s: %w", dir, err)
	}
	lockPath, err := TranscriptLockPath(abs)
	if err != nil {
		return nil, apperr.Statef("transcript path %s: %w", transcriptPath, err)
	}
	deadline := time.Now().Add(o.Timeout)
	pid := os.Getpid()
	var last *lockFile
	attempt := 0
	for {
		attempt++
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("waiting for %s: %w", lockPath, err)
		}
		now := o.Now()
		f, fi, err := createLinked(lockPath, transcriptPayload(pid, now))
		if err == nil {
			return &held{path: lockPath, fi: fi, f: f, acquired: now}, nil
		}
		retryNow := false
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if mkErr := mkdirAll(filepath.Dir(lockPath)); mkErr != nil {
				return nil, apperr.Statef("cannot create transcript directory %s: %w", filepath.Dir(lockPath), mkErr)
			}
			retryNow = attempt == 1
		case !errors.Is(err, fs.ErrExist):
			return nil, apperr.Statef("cannot create transcript lock %s: %w", lockPath, err)
		default:
			lf, rerr := readLock(lockPath)
			if rerr == nil && lf == nil {
				retryNow = true // released in between
			} else if lf != nil {
				last = lf
				if transcriptEvictable(lf, o.Now(), o.Stale) {
					retryNow, _ = removeIfSame(lockPath, lf.fi)
				}
				lf.close()
			}
		}
		if time.Now().After(deadline) {
			return nil, transcriptTimeout(lockPath, last, o)
		}
		if retryNow {
			continue
		}
		step := min(20*o.Poll, time.Duration(attempt)*o.Poll)
		if err := sleepCtx(ctx, capToDeadline(step, deadline)); err != nil {
			return nil, fmt.Errorf("waiting for %s: %w", lockPath, err)
		}
	}
}

type transcriptLock struct {
	pid       int
	pidOK     bool // pid is a usable positive integer
	createdAt time.Time
	createdOK bool
}

// parseTranscriptPayload follows readLockPayload: the payload is valid only
// if it parses as JSON with a number "pid" and a string "createdAt".
func parseTranscriptPayload(raw []byte) (transcriptLock, bool) {
	var tl transcriptLock
	m, ok := decodeObject(raw)
	if !ok {
		return tl, false
	}
	if _, isNum := m["pid"].(json.Number); !isNum {
		return tl, false
	}
	s, isStr := m["createdAt"].(string)
	if !isStr {
		return tl, false
	}
	tl.pid, tl.pidOK = intPID(m["pid"])
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		tl.createdAt, tl.createdOK = t, true
	}
	return tl, true
}

// transcriptEvictable: OpenClaw's "stale || !alive", except that an empty
// file younger than EmptyGrace is waited on and EPERM means alive.
func transcriptEvictable(lf *lockFile, now time.Time, stale time.Duration) bool {
	if len(bytes.TrimSpace(lf.raw)) == 0 && now.Sub(lf.fi.ModTime()) < EmptyGrace {
		return false
	}
	tl, ok := parseTranscriptPayload(lf.raw)
	if !ok || !tl.createdOK || now.Sub(tl.createdAt) > stale {
		return true
	}
	// pid 0, negative or fractional: OpenClaw's isAlive says dead.
	return !tl.pidOK || pidDead(tl.pid)
}

func transcriptTimeout(lockPath string, lf *lockFile, o Options) error {
	owner := "unknown"
	if lf != nil {
		if pid := payloadPID(lf.raw); pid > 0 {
			owner = fmt.Sprintf("pid=%d", pid)
		}
	}
	return apperr.Lockf("session file locked (timeout %dms): %s %s", o.Timeout.Milliseconds(), owner, lockPath)
}

// InspectTranscript reports who holds transcriptPath's write lock, without
// taking it. (nil, nil) when it is not locked. Since is the payload's
// createdAt when valid, else the file's mtime; Stale is OpenClaw's rule
// (invalid payload, or createdAt unparsable or older than 30 min).
func InspectTranscript(transcriptPath string) (*HolderInfo, error) {
	lockPath, err := TranscriptLockPath(transcriptPath)
	if err != nil {
		return nil, err
	}
	lf, err := readLock(lockPath)
	if err != nil || lf == nil {
		return nil, err
	}
	lf.close()
	if lf.kind != "" {
		return &HolderInfo{Path: lockPath, Since: lf.fi.ModTime(), Kind: lf.kind}, nil
	}
	h := &HolderInfo{Path: lockPath, Since: lf.fi.ModTime(), Raw: string(lf.raw)}
	tl, ok := parseTranscriptPayload(lf.raw)
	if ok && tl.pidOK {
		h.PID = tl.pid
		h.Alive = PIDAlive(tl.pid)
	}
	if ok && tl.createdOK {
		h.Since = tl.createdAt
	}
	h.Stale = !ok || !tl.createdOK || time.Since(tl.createdAt) > DefaultTranscriptStale
	return h, nil
}
