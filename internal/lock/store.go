package lock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
)

// StoreLockPath is the lock file of a sessions.json: storePath + ".lock"
// (plain string concatenation, as OpenClaw does).
func StoreLockPath(storePath string) string { return storePath + ".lock" }

// storePayload is OpenClaw's compact store-lock payload,
// JSON.stringify({pid, startedAt: Date.now()}).
func storePayload(pid int, now time.Time) []byte {
	return fmt.Appendf(nil, `{"pid":%d,"startedAt":%d}`, pid, now.UnixMilli())
}

// AcquireStore takes OpenClaw's session-store lock for storePath, exactly as
// withSessionStoreLock does (format §3.1): it creates storePath+".lock"
// exclusively with the payload {"pid":<pid>,"startedAt":<ms>}, polls every
// 25 ms, evicts a lock whose mtime is more than 30 s old (the payload is not
// trusted for age), and gives up after opts.Timeout (default 10 s) with an
// apperr.Lockf error (exit 11) naming the holder. See the package comment for
// the deliberate differences (atomic payload, dead-pid eviction, ownership
// check on release), and giveway.go for the one thing OpenClaw does not do:
// a process of ours that has kept the lock to itself for 100 ms leaves it
// free for 30-60 ms before it takes it again, so that a polling OpenClaw
// gets its turn.
//
// The critical section must stay far below 30 s: OpenClaw evicts older locks.
func AcquireStore(ctx context.Context, storePath string, opts Options) (Held, error) {
	o := opts.withDefaults(DefaultStorePoll, DefaultStoreStale)
	lockPath := StoreLockPath(storePath)
	dir := filepath.Dir(lockPath)
	start := time.Now()
	deadline := start.Add(o.Timeout)
	pid := os.Getpid()
	missingDir := 0
	var last *lockFile
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("waiting for %s: %w", lockPath, err)
		}
		// Give way: this process has kept the lock to itself for a while,
		// so leave it free for longer than OpenClaw's poll interval first
		// (giveway.go). Never past the deadline: one attempt is always made.
		if d := storeTurns.wait(lockPath, time.Now()); d > 0 && time.Now().Before(deadline) {
			if err := sleepCtx(ctx, capToDeadline(d, deadline)); err != nil {
				return nil, fmt.Errorf("waiting for %s: %w", lockPath, err)
			}
			continue
		}
		now := o.Now()
		f, fi, err := createLinked(lockPath, storePayload(pid, now))
		if err == nil {
			// OpenClaw closes its store lock at once (the file's existence is
			// the lock); we keep the descriptor so the inode number cannot be
			// reused while we hold it, which makes Release's ownership check
			// reliable.
			storeTurns.acquired(lockPath, time.Now())
			return &held{path: lockPath, fi: fi, f: f, acquired: now, onRelease: storeTurns.released}, nil
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// The directory is missing (or vanished): recreate it and retry,
			// at once the first time, then at the poll interval.
			if mkErr := mkdirAll(dir); mkErr != nil {
				return nil, apperr.Statef("cannot create lock directory %s: %w", dir, mkErr)
			}
			missingDir++
			if missingDir > 1 {
				if time.Now().After(deadline) {
					return nil, apperr.Lockf("cannot create session store lock %s (directory keeps vanishing); gave up after %s", lockPath, o.Timeout)
				}
				if err := sleepCtx(ctx, capToDeadline(o.Poll, deadline)); err != nil {
					return nil, fmt.Errorf("waiting for %s: %w", lockPath, err)
				}
			}
			continue
		case !errors.Is(err, fs.ErrExist):
			return nil, apperr.Statef("cannot create session store lock %s: %w", lockPath, err)
		}

		// EEXIST. Like OpenClaw, the timeout is checked before the stale check.
		if time.Now().After(deadline) {
			return nil, storeTimeout(lockPath, last, o)
		}
		lf, rerr := readLock(lockPath)
		if rerr == nil && lf == nil {
			continue // released in between: retry at once
		}
		if lf != nil {
			last = lf
			evict := storeEvictable(lf, o.Now(), o.Stale)
			retry := false
			if evict {
				retry, _ = removeIfSame(lockPath, lf.fi)
			}
			lf.close()
			if retry {
				continue
			}
		}
		if err := sleepCtx(ctx, capToDeadline(o.Poll, deadline)); err != nil {
			return nil, fmt.Errorf("waiting for %s: %w", lockPath, err)
		}
	}
}

// storeEvictable: mtime older than stale (OpenClaw's rule, whatever the
// payload), or an OpenClaw-shaped payload naming a pid that does not exist.
// An empty or garbage payload younger than stale is waited on.
func storeEvictable(lf *lockFile, now time.Time, stale time.Duration) bool {
	if now.Sub(lf.fi.ModTime()) > stale {
		return true
	}
	if pid, _, ok := parseStorePayload(lf.raw); ok && pidDead(pid) {
		return true
	}
	return false
}

func storeTimeout(lockPath string, lf *lockFile, o Options) error {
	who, held := "unknown", ""
	if lf != nil {
		if pid := payloadPID(lf.raw); pid > 0 {
			who = strconv.Itoa(pid)
		}
		held = ", held " + fmtSecs(o.Now().Sub(lf.fi.ModTime()))
	}
	return apperr.Lockf("session store locked by pid %s (%s%s); gave up after %s", who, lockPath, held, o.Timeout)
}

// parseStorePayload accepts OpenClaw's store-lock shape: a JSON object whose
// "pid" is a positive integer and "startedAt" a number.
func parseStorePayload(raw []byte) (pid int, startedAt int64, ok bool) {
	m, ok := decodeObject(raw)
	if !ok {
		return 0, 0, false
	}
	pid, ok = intPID(m["pid"])
	if !ok {
		return 0, 0, false
	}
	n, isNum := m["startedAt"].(json.Number)
	if !isNum {
		return 0, 0, false
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, 0, false
	}
	return pid, int64(f), true
}

// payloadPID extracts a positive integer "pid" from any JSON object payload
// (0 if none), for messages.
func payloadPID(raw []byte) int {
	m, ok := decodeObject(raw)
	if !ok {
		return 0
	}
	pid, _ := intPID(m["pid"])
	return pid
}

func decodeObject(raw []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	if dec.More() { // trailing data: JSON.parse would reject it
		return nil, false
	}
	return m, true
}

// intPID accepts a JSON number that is a positive integer pid.
func intPID(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || f <= 0 || f > math.MaxInt32 || f != math.Trunc(f) {
		return 0, false
	}
	return int(f), true
}

// InspectStore reports who holds storePath's lock, without taking it.
// (nil, nil) when the store is not locked. Since is the payload's startedAt
// when present, else the file's mtime; Stale is OpenClaw's rule (mtime older
// than 30 s).
func InspectStore(storePath string) (*HolderInfo, error) {
	lockPath := StoreLockPath(storePath)
	lf, err := readLock(lockPath)
	if err != nil || lf == nil {
		return nil, err
	}
	lf.close()
	if lf.kind != "" {
		return &HolderInfo{Path: lockPath, Since: lf.fi.ModTime(), Kind: lf.kind}, nil
	}
	h := &HolderInfo{
		Path:  lockPath,
		PID:   payloadPID(lf.raw),
		Since: lf.fi.ModTime(),
		Stale: time.Since(lf.fi.ModTime()) > DefaultStoreStale,
		Raw:   string(lf.raw),
	}
	if _, ms, ok := parseStorePayload(lf.raw); ok {
		h.Since = time.UnixMilli(ms)
	}
	h.Alive = h.PID > 0 && PIDAlive(h.PID)
	return h, nil
}
