package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/sqlitewrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
)

// FixOptions tune Fix.
type FixOptions struct {
	LockTimeout time.Duration
}

// Fix repairs the Fixable findings in place, setting Fixed (what was done)
// or FixError on each. Every repair goes through OpenClaw's own lock:
//
//   - a dead or stale lock: taken with OpenClaw's protocol, whose eviction
//     rules remove it, then released — a lock a live process took meanwhile
//     is waited on, never removed;
//   - an orphan transcript: under the store lock, re-checked that no entry
//     points at it, then under its transcript lock renamed
//     <file>.deleted.<ts> (never deleted);
//   - a dead run: ended as "runner exited" (runs.Reap re-checks the runner);
//   - due sub-agents: archived by archive.Sweep (through the write seam: store lock, .deleted.<ts>).
//
// It never rewrites a store and never writes a SQLite database.
func Fix(ctx context.Context, s *state.State, fs []Finding, now time.Time, o FixOptions) {
	swept := false
	var sweepRep *archive.Report
	var sweepErr error
	for i := range fs {
		f := &fs[i]
		if !f.Fixable || f.Fixed != "" {
			continue
		}
		var done string
		var err error
		if f.action.kind != actArchive {
			// our own repairs (removing a lock, renaming an orphan, ending a
			// run) act only on files whose real place is inside the real
			// state dir: a symlinked store dir is read, never repaired
			if why := outsideStateDir(s.Dir.Path, f.Path); why != "" {
				f.FixError = why
				continue
			}
		}
		switch f.action.kind {
		case actRemoveLock:
			done, err = fixLock(ctx, f, o)
		case actRenameOrphan:
			done, err = fixOrphan(ctx, f, now, o)
		case actReapRun:
			done, err = fixRun(s, f, now)
		case actMoveLegacyStore:
			done, err = fixLegacyStore(ctx, s, f, now, o)
		case actArchive:
			if !swept {
				swept = true
				sweepRep, sweepErr = archive.Sweep(ctx, s, now, archive.SweepOptions{LockTimeout: o.LockTimeout, Remove: sessionwrite.LocalRemover(s)})
			}
			done, err = archived(sweepRep, sweepErr, f.action.runID)
		default:
			continue
		}
		if err != nil {
			f.FixError = err.Error()
			continue
		}
		f.Fixed = done
	}
}

// outsideStateDir says why path may not be repaired ("" when it may): the
// directory holding it, with every symlink resolved, must lie inside the
// state dir, resolved the same way. The entry itself is what a rename or a
// removal changes, so its own name is not followed.
func outsideStateDir(stateDir, path string) string {
	root, err := filepath.EvalSymlinks(stateDir)
	if err != nil {
		return fmt.Sprintf("not fixed: the state dir cannot be resolved (%v): fix it by hand", err)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return fmt.Sprintf("not fixed: %s cannot be resolved (%v): fix it by hand", filepath.Dir(path), err)
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Sprintf("not fixed: its real place %s is outside the state dir %s (a symlinked directory): fix it by hand",
			filepath.Join(dir, filepath.Base(path)), root)
	}
	return ""
}

func fixLock(ctx context.Context, f *Finding, o FixOptions) (string, error) {
	var h lock.Held
	var err error
	opts := lock.Options{Timeout: o.LockTimeout}
	if f.action.lockKind == "store" {
		h, err = lock.AcquireStore(ctx, strings.TrimSuffix(f.Path, ".lock"), opts)
	} else {
		h, err = lock.AcquireTranscript(ctx, strings.TrimSuffix(f.Path, ".lock"), opts)
	}
	if err != nil {
		return "", err
	}
	if err := h.Release(); err != nil {
		return "", err
	}
	return "removed (evicted under OpenClaw's lock protocol)", nil
}

// fixOrphan renames an orphan transcript, under the store lock (so no
// writer can add an entry pointing at it meanwhile) and its own lock.
func fixOrphan(ctx context.Context, f *Finding, now time.Time, o FixOptions) (string, error) {
	path := f.Path
	base := filepath.Base(path)
	sid := strings.TrimSuffix(base, ".jsonl")
	target := path + ".deleted." + archive.Timestamp(now)
	rename := func() error {
		h, err := lock.AcquireTranscript(ctx, path, lock.Options{Timeout: o.LockTimeout})
		if err != nil {
			return err
		}
		defer h.Release()
		if _, err := os.Lstat(target); err == nil {
			return fmt.Errorf("%s exists already", target)
		}
		if err := h.Check(); err != nil {
			return err
		}
		return os.Rename(path, target)
	}
	var inner error
	_, err := store.Update(ctx, f.action.storePath, store.UpdateOptions{LockTimeout: o.LockTimeout}, func(tx *store.Tx) error {
		var holder string
		tx.ForEach(func(key string, raw json.RawMessage) bool {
			r := gjson.GetManyBytes(raw, "sessionId", "sessionFile")
			if r[0].Str == sid || (r[1].Str != "" && filepath.Base(r[1].Str) == base) {
				holder = key
				return false
			}
			return true
		})
		if holder != "" {
			inner = fmt.Errorf("session %s points to it now; left alone", holder)
			return nil
		}
		inner = rename()
		return nil
	})
	if errors.Is(err, store.ErrStoreMissing) {
		inner, err = rename(), nil
	}
	if err != nil {
		return "", err
	}
	if inner != nil {
		return "", inner
	}
	return "renamed to " + target, nil
}

func fixRun(s *state.State, f *Finding, now time.Time) (string, error) {
	rs := runs.Open(s.Dir.Path)
	r, err := rs.Load(f.action.runID)
	if err != nil {
		return "", err
	}
	r, err = rs.Reap(r, now)
	if err != nil {
		return "", err
	}
	if !runs.Terminal(r.Status) {
		return "", errors.New("its runner is alive again; left alone")
	}
	return "ended: " + r.Status + " (" + r.Error + ")", nil
}

func archived(rep *archive.Report, err error, runID string) (string, error) {
	if err != nil {
		return "", err
	}
	for _, a := range rep.Archived {
		if a.RunID == runID {
			if len(a.Renamed) > 0 {
				return "archived; transcript renamed to " + strings.Join(a.Renamed, ", "), nil
			}
			return "archived", nil
		}
	}
	for _, d := range rep.Deferred {
		if d.RunID == runID {
			return "", errors.New("deferred: " + d.Reason)
		}
	}
	return "", errors.New("not archived (no longer due)")
}

// fixLegacyStore moves a legacy sessions.json whose every entry the SQLite
// store beside it holds to <file>.migrated-<time>.bak: only while no
// OpenClaw process holds the state dir (sqlitewrite.Holders, as the direct
// SQLite writes check it), under OpenClaw's own store lock, after comparing
// it with the store once more.
func fixLegacyStore(ctx context.Context, s *state.State, f *Finding, now time.Time, o FixOptions) (string, error) {
	path, dbPath := f.action.storePath, f.action.path
	hs, err := sqlitewrite.Holders(s.Dir.Path, dbPath, now)
	if err != nil {
		return "", err
	}
	if len(hs) > 0 {
		names := make([]string, len(hs))
		for i, h := range hs {
			names[i] = h.String()
		}
		return "", fmt.Errorf("not moved: %s holds the state dir; stop OpenClaw and run it again", strings.Join(names, ", "))
	}
	h, err := lock.AcquireStore(ctx, path, lock.Options{Timeout: o.LockTimeout})
	if err != nil {
		return "", err
	}
	defer h.Release()
	db, err := sqlitestore.Open(dbPath, sqlitestore.Options{})
	if err != nil {
		return "", err
	}
	ls := compareLegacyStore(path, db)
	db.Close()
	switch {
	case ls.Err != "":
		return "", errors.New("not moved: " + ls.Err)
	case !ls.Compared:
		return "", errors.New("not moved: the SQLite store could not be read to compare")
	case len(ls.Missing) > 0:
		return "", fmt.Errorf("not moved: the SQLite store no longer holds %s as the file has it; run %s", strings.Join(ls.Missing, ", "), ImportCommand)
	}
	if err := h.Check(); err != nil {
		return "", err
	}
	target := path + ".migrated-" + archive.Timestamp(now) + ".bak"
	if _, err := os.Lstat(target); err == nil {
		return "", fmt.Errorf("%s exists already", target)
	}
	if err := os.Rename(path, target); err != nil {
		return "", err
	}
	return "moved to " + target, nil
}
