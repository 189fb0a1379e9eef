package transcripts

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/sqlitestore"
)

// The transcripts a 2026.8+ store holds (sqlitestore.DB.Transcripts, one
// query over all its events: the orphans' source), kept per store version
// for the life of the process: a long-lived one (the MCP server, the UI)
// that lists every agent's orphans on each search asks the store again
// only when it changed. A store's version is its database file's and its
// -wal's stamps (device and inode, size, mtime, ctime; the -wal's absence
// too): a commit writes one or the other. The rule for recent writes is
// the headers' (racyWindow): a list read while the store changed, or less
// than racyWindow after its last change, is never kept, so a write in the
// same clock tick as the read cannot leave a stale list behind.

// storeVersion is a store's version: its file's stamp and its -wal's.
type storeVersion struct {
	db, wal fsutil.Stamp
	hasWAL  bool
}

func storeVersionOf(path string) (storeVersion, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return storeVersion{}, err
	}
	v := storeVersion{db: fsutil.StampOf(fi)}
	wi, err := os.Stat(path + "-wal")
	switch {
	case err == nil:
		v.wal, v.hasWAL = fsutil.StampOf(wi), true
	case !errors.Is(err, fs.ErrNotExist):
		return storeVersion{}, err
	}
	return v, nil
}

func (v storeVersion) equal(w storeVersion) bool {
	return v.db.Equal(w.db) && v.hasWAL == w.hasWAL && v.wal.Equal(w.wal)
}

// recent reports whether the store changed less than racyWindow before t.
func (v storeVersion) recent(t time.Time) bool {
	for _, s := range []fsutil.Stamp{v.db, v.wal} {
		if s.MTime.After(t.Add(-racyWindow)) || s.CTime > t.Add(-racyWindow).UnixNano() {
			return true
		}
	}
	return false
}

type storedEntry struct {
	v    storeVersion
	list []sqlitestore.StoredTranscript // shared: never changed
}

// storedCache is the kept lists, by store path.
type storedCache struct {
	mu    sync.Mutex
	m     map[string]storedEntry
	now   func() time.Time
	reads atomic.Int64 // lists read from a store (the tests' count of misses)
}

var stored = &storedCache{m: map[string]storedEntry{}, now: time.Now}

// list is db.Transcripts(), from the kept list while the store is the
// version it was read at.
func (c *storedCache) list(db *sqlitestore.DB) ([]sqlitestore.StoredTranscript, error) {
	path := db.Path()
	c.mu.Lock()
	now := c.now
	c.mu.Unlock()
	start := now()
	v, verr := storeVersionOf(path)
	if verr == nil {
		c.mu.Lock()
		e, ok := c.m[path]
		c.mu.Unlock()
		if ok && e.v.equal(v) {
			return e.list, nil
		}
	}
	c.reads.Add(1)
	list, err := db.Transcripts()
	if err != nil {
		return list, err
	}
	after, aerr := storeVersionOf(path)
	c.mu.Lock()
	defer c.mu.Unlock()
	if verr != nil || aerr != nil || !after.equal(v) || v.recent(start) {
		delete(c.m, path)
		return list, nil
	}
	if len(c.m) >= maxHeaderDirs {
		clear(c.m)
	}
	c.m[path] = storedEntry{v: v, list: list}
	return list, nil
}
