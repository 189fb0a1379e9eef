package transcripts

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw/sessions/internal/dirstat"
)

// The parentSession each transcript's header names (Attribute), kept per
// file version for the life of the process: a long-lived one (the MCP
// server, the UI) that lists the orphans of 10,000 transcripts on every
// search opens each once, then only stats them — in one batch per
// directory, fstatat on one open handle (dirstat.StatNames) — and reads
// again the header of a file whose version changed.
//
// A version is the file's device, inode, size, mtime and ctime, as
// internal/storecache keys a store: a header rewritten in place, by a
// rename over it or a new file of the same name changes one of them. The
// same rule for recent writes holds: a file whose mtime or ctime is less
// than racyWindow before the stat is never served from the cache nor kept
// in it (a rewrite in the same clock tick keeps size and times), so what
// is kept is what the file held at that version, whatever came after.

// racyWindow is how recent a change must be for a version not to be
// trusted (storecache.RacyWindow's rule).
const racyWindow = 2 * time.Second

// maxHeaderDirs bounds the directories kept (a process reads one state
// dir, the test binaries many).
const maxHeaderDirs = 64

// headerEntry is one file version's header: the parent it names ("": none).
type headerEntry struct {
	st     dirstat.Stat
	parent string
}

// headerCache is the headers of the transcripts of each directory read,
// as of the last read of that directory.
type headerCache struct {
	mu   sync.Mutex
	dirs map[string]map[string]headerEntry // dir → file name → its version's header
	off  bool                              // read every header (CacheHeaders)
	now  func() time.Time
	read atomic.Int64 // headers read (the tests' count of the cache's misses)
}

var headers = &headerCache{dirs: map[string]map[string]headerEntry{}, now: time.Now}

// CacheHeaders turns the process's cache of transcripts' headers on or
// off (it is on), returning what it was; off, Attribute reads every
// header as it did before the cache (what is kept stays, for when it is
// on again: it is keyed by version, so it cannot be stale). For the
// differential tests and the benchmarks that compare the two.
func CacheHeaders(on bool) bool {
	headers.mu.Lock()
	defer headers.mu.Unlock()
	was := !headers.off
	headers.off = !on
	return was
}

// parents is the parentSession file name each of names (files of dir)
// names in its header ("" when none, no header, or unreadable).
func (c *headerCache) parents(dir string, names []string) []string {
	out := make([]string, len(names))
	buf := make([]byte, headerMax)
	c.mu.Lock()
	off, now := c.off, c.now
	c.mu.Unlock()
	if off {
		for i, n := range names {
			out[i] = c.header(filepath.Join(dir, n), buf)
		}
		return out
	}
	start := now()
	stats, err := dirstat.StatNames(dir, dirstat.NewNames(names))
	if err != nil { // the directory cannot be opened: read by path, keep nothing
		for i, n := range names {
			out[i] = c.header(filepath.Join(dir, n), buf)
		}
		return out
	}
	trustedBefore := start.Add(-racyWindow).UnixNano()
	c.mu.Lock()
	old := c.dirs[dir]
	c.mu.Unlock()
	next := make(map[string]headerEntry, len(names))
	for i, n := range names {
		st := stats[i]
		if !st.OK || !st.Mode.IsRegular() {
			out[i] = c.header(filepath.Join(dir, n), buf) // gone or not a file: as before, uncached
			continue
		}
		trusted := st.MtimeNano < trustedBefore && st.CtimeNano < trustedBefore
		if e, ok := old[n]; ok && trusted && e.st == st {
			out[i] = e.parent
			next[n] = e
			continue
		}
		out[i] = c.header(filepath.Join(dir, n), buf)
		if trusted {
			next[n] = headerEntry{st: st, parent: out[i]}
		}
	}
	c.mu.Lock()
	if len(c.dirs) >= maxHeaderDirs && c.dirs[dir] == nil {
		clear(c.dirs)
	}
	if !c.off {
		c.dirs[dir] = next // the files of this listing only: a deleted one is dropped
	}
	c.mu.Unlock()
	return out
}

// header reads path's header (headerParent), counted.
func (c *headerCache) header(path string, buf []byte) string {
	c.read.Add(1)
	return headerParent(path, buf)
}
