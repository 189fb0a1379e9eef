// Package archive keeps the sub-agent children due for archiving and
// sweeps them: OpenClaw's gateway archives sub-agent children
// agents.defaults.subagents.archiveAfterMinutes after their creation with
// a 60 s timer; with no daemon, every `sessions` invocation looks at a
// small index of archive due times instead (Sweep), and removes a due
// child through the write seam (sessionwrite: deleted with its transcript
// renamed <file>.deleted.<ISO timestamp with ':' → '-'> as OpenClaw's
// sessions.delete does, format §6.6, §6.7; archived on a 2026.8+ store).
// It also names and finds the transcripts a delete renames (Timestamp,
// Transcripts).
package archive

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/tidwall/gjson"
)

// Timestamp is OpenClaw's archive suffix time: toISOString() with every ':'
// replaced by '-' (dist/gateway/session-utils.fs.js archiveFileOnDisk).
func Timestamp(t time.Time) string {
	return strings.ReplaceAll(t.UTC().Format("2006-01-02T15:04:05.000Z"), ":", "-")
}

// Removed is what removing a sub-agent child did: deleting it (JSON era,
// its transcripts renamed) or archiving it (SQLite era).
type Removed struct {
	Existed bool // the session was in its store
	// Renamed are the transcripts renamed to .deleted.<ts> (JSON era).
	Renamed []string
	// Archived: the row was archived (archivedAt set, as sessions.patch
	// archived does), not deleted — an OpenClaw 2026.8+ (SQLite) session.
	Archived bool
	At       int64 // ms
}

// Remover removes the child key of agent as of now (the sessions
// sessionwrite.Writes.RemoveChild of the agent's store), waiting at most
// lockTimeout for its locks.
type Remover func(ctx context.Context, agent, key string, now time.Time, lockTimeout time.Duration) (*Removed, error)

// Transcripts returns the transcript files of an entry that exist — its
// sessionFile, <storeDir>/<sessionId>.jsonl, the agent's sessions dir — as
// sessions.delete finds them (resolveSessionTranscriptCandidates), once
// each: inside are those whose real path lies in the state dir or the store
// dir (the ones a delete renames), outside the others (never touched).
func Transcripts(s *state.State, agent, storeDir string, meta store.Meta) (inside, outside []string) {
	if store.ValidSessionID(meta.SessionID) != nil {
		return nil, nil
	}
	var cands []string
	if sf := strings.TrimSpace(meta.SessionFile); sf != "" {
		if !filepath.IsAbs(sf) {
			sf = filepath.Join(storeDir, sf)
		}
		cands = append(cands, sf)
	}
	cands = append(cands, filepath.Join(storeDir, meta.SessionID+".jsonl"), filepath.Join(s.SessionsDir(agent), meta.SessionID+".jsonl"))
	seen := map[string]bool{}
	for _, c := range cands {
		if _, err := os.Lstat(c); err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(c)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		if !s.Resolver.Inside(real, storeDir) {
			outside = append(outside, c)
			continue
		}
		inside = append(inside, c)
	}
	return inside, outside
}

// ---- the index -------------------------------------------------------

// Entry is one child due for archiving.
type Entry struct {
	RunID       string `json:"runId"`
	ChildKey    string `json:"childKey"`
	Agent       string `json:"agent"`
	ArchiveAtMs int64  `json:"archiveAtMs"`
}

// Index is <state>/sessions-cli/archive-index.json: the pending archives,
// earliest due first, and that earliest time up front (nextAtMs), so that
// "nothing is due" is one read of a small file and one field looked up.
type Index struct {
	Version  int     `json:"version"`
	NextAtMs int64   `json:"nextAtMs"` // 0 when empty
	Entries  []Entry `json:"entries"`
}

// IndexPath is the index file of a state dir.
func IndexPath(stateDir string) string {
	return filepath.Join(stateDir, "sessions-cli", "archive-index.json")
}

func indexLock(stateDir string) *lock.Flock {
	return lock.NewFlock(IndexPath(stateDir) + ".flock")
}

// Pending returns the children waiting in the index, earliest due first
// (read without a lock: for reports such as `sessions doctor`).
func Pending(stateDir string) ([]Entry, error) {
	ix, err := readIndex(stateDir)
	if err != nil {
		return nil, err
	}
	return ix.Entries, nil
}

// readIndex reads the index; a missing file is an empty index.
func readIndex(stateDir string) (*Index, error) {
	data, err := fsutil.ReadFileRegular(IndexPath(stateDir))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &Index{Version: 1}, nil
		}
		return nil, err
	}
	var ix Index
	if err := json.Unmarshal(data, &ix); err != nil {
		return nil, apperr.Statef("archive index %s is corrupt: %v", IndexPath(stateDir), err)
	}
	return &ix, nil
}

// writeIndex replaces the index atomically (temp file, fsync, rename).
func writeIndex(stateDir string, ix *Index) error {
	p := IndexPath(stateDir)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	sort.SliceStable(ix.Entries, func(i, j int) bool { return ix.Entries[i].ArchiveAtMs < ix.Entries[j].ArchiveAtMs })
	ix.Version = 1
	if ix.Entries == nil {
		ix.Entries = []Entry{}
	}
	ix.NextAtMs = 0
	if len(ix.Entries) > 0 {
		ix.NextAtMs = ix.Entries[0].ArchiveAtMs
	}
	data, err := jsonx.MarshalIndent(ix)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(p, append(data, '\n'), 0o600)
}

// indexTimeout bounds the wait for the index flock when adding to or
// removing from it (it is held for a tiny read-modify-write).
const indexTimeout = 5 * time.Second

// Add records a child to archive at archiveAtMs.
func Add(stateDir string, e Entry) error {
	return modify(stateDir, indexTimeout, func(ix *Index) bool {
		ix.Entries = slices.DeleteFunc(ix.Entries, func(x Entry) bool { return x.RunID == e.RunID })
		ix.Entries = append(ix.Entries, e)
		return true
	})
}

// Remove forgets a run's pending archive (its child is already gone).
func Remove(stateDir, runID string) error {
	if _, err := os.Stat(IndexPath(stateDir)); err != nil {
		return nil
	}
	return modify(stateDir, indexTimeout, func(ix *Index) bool {
		n := len(ix.Entries)
		ix.Entries = slices.DeleteFunc(ix.Entries, func(x Entry) bool { return x.RunID == runID })
		return len(ix.Entries) != n
	})
}

func modify(stateDir string, timeout time.Duration, fn func(ix *Index) bool) error {
	if err := os.MkdirAll(filepath.Dir(IndexPath(stateDir)), 0o700); err != nil {
		return err
	}
	fl := indexLock(stateDir)
	if err := fl.Lock(context.Background(), timeout); err != nil {
		return err
	}
	defer fl.Unlock()
	ix, err := readIndex(stateDir)
	if err != nil {
		return err
	}
	if !fn(ix) {
		return nil
	}
	return writeIndex(stateDir, ix)
}

// ---- the sweep -------------------------------------------------------

// SweepOptions tune Sweep.
type SweepOptions struct {
	// LockTimeout bounds the waits for the index flock and for OpenClaw's
	// store lock. The automatic sweep uses a short one and retries on the
	// next invocation.
	LockTimeout time.Duration
	// Remove removes a due child from its store (required).
	Remove Remover
}

// Swept is one archived child.
type Swept struct {
	RunID    string   `json:"runId"`
	ChildKey string   `json:"childSessionKey"`
	Existed  bool     `json:"existed"`
	Renamed  []string `json:"renamed,omitempty"`
	DueAtMs  int64    `json:"archiveAtMs"`
}

// Deferred is a due child left for a later sweep.
type Deferred struct {
	RunID    string `json:"runId"`
	ChildKey string `json:"childSessionKey"`
	Reason   string `json:"reason"`
}

// Report is what a sweep did.
type Report struct {
	Archived []Swept    `json:"archived"`
	Deferred []Deferred `json:"deferred,omitempty"`
	Pending  int        `json:"pending"`            // children not yet due
	NextAtMs int64      `json:"nextAtMs,omitempty"` // when the next one is due
}

// Due reports whether the index has an entry due at now, reading only the
// index (the cheap check every invocation makes).
func Due(stateDir string, now time.Time) (bool, error) {
	data, err := fsutil.ReadFileRegular(IndexPath(stateDir))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	if next := gjson.GetBytes(data, "nextAtMs"); next.Type == gjson.Number {
		return next.Int() > 0 && next.Int() <= now.UnixMilli(), nil
	}
	var ix Index // written by an older version: decode it all
	if err := json.Unmarshal(data, &ix); err != nil {
		return false, apperr.Statef("archive index %s is corrupt: %v", IndexPath(stateDir), err)
	}
	return len(ix.Entries) > 0 && slices.MinFunc(ix.Entries, func(a, b Entry) int { return cmp.Compare(a.ArchiveAtMs, b.ArchiveAtMs) }).ArchiveAtMs <= now.UnixMilli(), nil
}

// Sweep archives every child whose archive time has come: it leaves its
// store (o.Remove: JSON era, deleted and its transcript renamed; SQLite
// era, archived), the run
// record notes it, and the child leaves the index. A child whose runner is
// still alive, or whose store lock is busy, stays due for the next sweep
// (OpenClaw would abort the run; we let it finish). When nothing is due it
// reads the index and nothing else.
func Sweep(ctx context.Context, s *state.State, now time.Time, o SweepOptions) (*Report, error) {
	if o.Remove == nil {
		return nil, errors.New("archive.Sweep: SweepOptions.Remove is required")
	}
	dir := s.Dir.Path
	rep := &Report{Archived: []Swept{}}
	ix, err := readIndex(dir)
	if err != nil {
		return nil, err
	}
	nowMs := now.UnixMilli()
	if len(ix.Entries) == 0 || ix.Entries[0].ArchiveAtMs > nowMs {
		rep.Pending = len(ix.Entries)
		if len(ix.Entries) > 0 {
			rep.NextAtMs = ix.Entries[0].ArchiveAtMs
		}
		return rep, nil
	}
	fl := indexLock(dir)
	if err := fl.Lock(ctx, o.LockTimeout); err != nil {
		return nil, err
	}
	defer fl.Unlock()
	if ix, err = readIndex(dir); err != nil { // again, inside the lock
		return nil, err
	}
	rs := runs.Open(dir)
	var keep []Entry
	for _, e := range ix.Entries {
		if e.ArchiveAtMs > nowMs || ctx.Err() != nil {
			keep = append(keep, e)
			continue
		}
		if rs.RunnerAlive(e.RunID) {
			rep.Deferred = append(rep.Deferred, Deferred{RunID: e.RunID, ChildKey: e.ChildKey, Reason: "the run is still going"})
			keep = append(keep, e)
			continue
		}
		res, err := o.Remove(ctx, e.Agent, e.ChildKey, now, o.LockTimeout)
		if err != nil {
			rep.Deferred = append(rep.Deferred, Deferred{RunID: e.RunID, ChildKey: e.ChildKey, Reason: err.Error()})
			keep = append(keep, e)
			continue
		}
		rep.Archived = append(rep.Archived, Swept{RunID: e.RunID, ChildKey: e.ChildKey, Existed: res.Existed, Renamed: res.Renamed, DueAtMs: e.ArchiveAtMs})
		if rec, err := rs.Load(e.RunID); err == nil && rec.Spawn != nil && rec.Spawn.ArchivedAt == 0 {
			rec.Spawn.ArchivedAt, rec.Spawn.ArchivedBy, rec.Spawn.Archived = res.At, "sweep", res.Renamed
			rec.Spawn.RowArchived = res.Archived
			_ = rs.Save(rec)
		}
	}
	for _, e := range keep {
		if e.ArchiveAtMs > nowMs {
			rep.Pending++
			if rep.NextAtMs == 0 || e.ArchiveAtMs < rep.NextAtMs {
				rep.NextAtMs = e.ArchiveAtMs
			}
		}
	}
	ix.Entries = keep
	if err := writeIndex(dir, ix); err != nil {
		return rep, err
	}
	return rep, nil
}
