// Package storecache keeps the parsed session stores of one process across
// its invocations (the calls a long-running server answers), so that a
// store that did not change is not read and parsed again — and never
// serves one that did.
//
// A store is kept with the versions of the files it was read from (a
// sessions.json; an agent database and its -wal) and is served again only
// while every one of them is still that version, which each call checks
// again (one stat per file). A version is the file's device and inode (a
// replacement by rename), size, modification time and status-change time
// (ctime, in nanoseconds where the platform has it): every write to a
// file sets its mtime and ctime to the time of the write.
//
// Timestamps have a granularity (the kernel's clock tick, a second or two
// on some file systems), so a write in the same tick as the read, of the
// same size, leaves every part of the version as it was. That is git's
// "racy clean" problem, and the answer is git's: a version is trusted
// only if the file's last change (the later of mtime and ctime) is at least
// RacyWindow older than the moment the read began. A later write must then
// carry a later time (the ctime, which a program cannot set back, where
// there is one), so it cannot keep the version. A store read less than
// RacyWindow after its file changed is answered but not trusted: the next
// call reads it again, until the file has been quiet long enough.
//
// Concurrent calls for one store share one read: a call that finds a read
// under way waits for it, and takes its result if that read began after
// the call did (it then shows every write that ended before the call
// began); otherwise it checks the versions itself as above.
//
// Stores handed out are shared by every caller: they must be treated as
// read-only (copy an entry before changing it).
package storecache

import (
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/store"
)

// RacyWindow is how long after a file's last change a read of it is not
// trusted to be the file's version (see the package comment). Two seconds
// cover the coarsest timestamps in use (FAT) and a little clock skew to a
// network file system.
const RacyWindow = 2 * time.Second

// Cache holds parsed stores by key (the path of the store's main file).
// The zero value is not usable: call New.
type Cache struct {
	now func() time.Time
	seq atomic.Int64

	mu    sync.Mutex
	slots map[string]*slot

	hits, loads atomic.Int64
}

// New returns an empty cache on the real clock.
func New() *Cache { return &Cache{now: time.Now, slots: map[string]*slot{}} }

// slot is one store's place in the cache.
type slot struct {
	mu sync.Mutex // held while the slot is checked or loaded

	st      *store.Store
	listing *store.Listing // st's (store.ListingOf), made once for every call it is served to
	warns   []string       // what loading st warned about, said again to each caller it is served to
	vers    []Version      // the files' versions while st was read
	trusted bool           // vers may be relied on (stable during the read, not racy)
	began   int64          // the sequence number at which st's read began
}

// Version is what tells two versions of one file apart: device and inode
// (a replacement), size, modification and status-change times.
type Version struct {
	exists       bool
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // ns
}

func versionOf(path string) (Version, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return Version{}, nil
		}
		return Version{}, err
	}
	return versionOfInfo(fi), nil
}

func versionOfInfo(fi fs.FileInfo) Version {
	s := fsutil.StampOf(fi)
	v := Version{exists: true, size: s.Size, mtime: s.MTime.UnixNano(), ctime: s.CTime, ino: s.Ino}
	if dev, ino, ok := fsutil.DevIno(fi); ok {
		v.dev, v.ino = dev, ino
	}
	return v
}

// statVersion is versionOf (tests stand in for a file system whose
// timestamps are coarse).
var statVersion = versionOf

func versionsOf(paths []string) ([]Version, error) {
	out := make([]Version, len(paths))
	for i, p := range paths {
		v, err := statVersion(p)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func sameVersions(a, b []Version) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// racy reports whether one of vs changed less than RacyWindow before t.
func racy(vs []Version, t time.Time) bool {
	for _, v := range vs {
		if v.Racy(t) {
			return true
		}
	}
	return false
}

// VersionOf is the version of the file (or directory) at path, following
// links as it is opened; a missing file is a version too (Exists false).
// A directory's version changes whenever an entry is added, removed or
// renamed in it.
func VersionOf(path string) (Version, error) { return versionOf(path) }

// Exists reports whether the file was there.
func (v Version) Exists() bool { return v.exists }

// Racy reports whether the file changed less than RacyWindow before start:
// a change in the same clock tick as a read that began at start could
// leave every part of the version as it was, so what was read is not
// trusted to be this version (git's "racy clean").
func (v Version) Racy(start time.Time) bool {
	return v.exists && max(v.mtime, v.ctime) >= start.Add(-RacyWindow).UnixNano()
}

func (c *Cache) slot(key string) *slot {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.slots[key]
	if s == nil {
		s = &slot{}
		c.slots[key] = s
	}
	return s
}

// Load returns the store kept under key when every file of files is still
// the version it was read from, else load's (kept for the next call when
// it can be trusted). warn receives the warnings load gave, each time the
// store is served. A failed load is not kept.
//
// load must read the store from files as they are: files name every file
// whose content the store depends on. A store this process has not kept is
// asked of the disk tier first, when the process has one (UseUserCache).
func (c *Cache) Load(key string, files []string, warn func(string), load func(warn func(string)) (*store.Store, error)) (*store.Store, error) {
	if c == nil {
		return tier.Load().Load(key, files, warn, load)
	}
	arrived := c.seq.Add(1)
	s := c.slot(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil && s.began > arrived {
		// read while this call waited for it: it shows the store as it was
		// after the call began
		return c.serve(s, warn), nil
	}
	began := c.seq.Add(1)
	start := c.now()
	before, err := versionsOf(files)
	if err == nil && s.st != nil && s.trusted && sameVersions(s.vers, before) {
		return c.serve(s, warn), nil
	}
	s.st, s.listing, s.warns, s.vers, s.trusted = nil, nil, nil, nil, false
	var warns []string
	st, lerr := tier.Load().Load(key, files, func(msg string) {
		warns = append(warns, msg)
		warn(msg)
	}, load)
	c.loads.Add(1)
	if lerr != nil {
		return nil, lerr
	}
	after, aerr := versionsOf(files)
	s.st, s.warns, s.began = st, warns, began
	s.trusted = err == nil && aerr == nil && sameVersions(before, after) && !racy(before, start)
	if s.trusted {
		s.vers = before
	}
	return st, nil
}

// LoadListing is Load for a listing (store.Listing). A process without a
// cache of its own (c nil) asks the disk tier, which decodes from a cache
// file only what the listing reads of every entry, and each whole entry
// when it is asked for; a cache keeps and serves whole stores.
func (c *Cache) LoadListing(key string, files []string, warn func(string), load func(warn func(string)) (*store.Store, error)) (*store.Listing, error) {
	if c == nil {
		return tier.Load().LoadListing(key, files, warn, load)
	}
	st, err := c.Load(key, files, warn, load)
	if err != nil {
		return nil, err
	}
	// The listing of a shared store is shared too (it is read-only: its
	// entries are the store's): a warm server's call on a 10,000-entry
	// store made four slices of 10,000 again each time.
	s := c.slot(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listing != nil && s.listing.St == st {
		return s.listing, nil
	}
	ls := store.ListingOf(st)
	if s.st == st {
		s.listing = ls
	}
	return ls, nil
}

func (c *Cache) serve(s *slot, warn func(string)) *store.Store {
	c.hits.Add(1)
	for _, w := range s.warns {
		warn(w)
	}
	return s.st
}

// Stats are a cache's counters.
type Stats struct {
	Hits  int64 // stores served without reading them
	Loads int64 // stores read
}

// Stats returns the counters so far.
func (c *Cache) Stats() Stats {
	return Stats{Hits: c.hits.Load(), Loads: c.loads.Load()}
}
