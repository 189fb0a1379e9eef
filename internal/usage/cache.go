package usage

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/openclaw/sessions/internal/cachefile"
	"github.com/openclaw/sessions/internal/fsutil"
)

// Stamp identifies one version of a file: a file whose stamp is unchanged is
// not read again. Extra carries the stamp of a companion file (a SQLite
// -wal) when there is one.
type Stamp struct {
	Dev, Ino  uint64
	Size      int64
	MtimeNano int64
	Extra     string
}

// StampOf is the stamp of a file's info.
func StampOf(fi fs.FileInfo) Stamp {
	s := Stamp{Size: fi.Size(), MtimeNano: fi.ModTime().UnixNano()}
	s.Dev, s.Ino, _ = fsutil.DevIno(fi)
	return s
}

// Part is what a unit holds for one session: a JSONL file holds one, an
// agent's SQLite store one per session (and per archive).
type Part struct {
	SessionID string
	Key       string // the session key when the unit itself names it (2026.8+ archives)
	Archived  bool
	Models    []Model // what Records[i].Model indexes
	Records   []Record
	Skips     Skips

	index map[Model]uint32 // while records are added
}

// cacheEntry is a unit's parts at a stamp.
type cacheEntry struct {
	Stamp Stamp
	Parts []Part
}

// cacheMagic starts a cache file (internal/cachefile's envelope: the
// magic, the CRC-32C of the payload, the payload); cacheVersion changes
// whenever what is stored (or how records are extracted) changes: another
// version is foreign and ignored.
const (
	cacheMagic   = "sessions-usage-cache\n"
	cacheVersion = 4
)

// Cache is the per-file cache of one state dir, in the tool's own cache dir
// (never in OpenClaw's state). A missing, corrupt (bad checksum, undecodable)
// or foreign (other version, other state dir) file is ignored: it is never
// trusted, only replaced.
type Cache struct {
	path     string
	stateDir string
	entries  map[string]cacheEntry
	dirty    bool
	// Ignored says why an existing cache file was not used ("" when it was
	// used or absent).
	Ignored string
}

// cacheFile is the encoded payload.
type cacheFile struct {
	Version  int
	StateDir string
	Entries  map[string]cacheEntry
}

// CacheDir is where the cache lives: os.UserCacheDir()/sessions/usage
// ($XDG_CACHE_HOME/sessions/usage on Linux when set).
func CacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "sessions", "usage"), nil
}

// OpenCache loads the cache of stateDir from dir (an empty cache when there
// is none or it cannot be trusted).
func OpenCache(dir, stateDir string) *Cache {
	sum := sha256.Sum256([]byte(stateDir))
	c := &Cache{
		path:     filepath.Join(dir, fmt.Sprintf("%x.cache", sum[:12])),
		stateDir: stateDir,
		entries:  map[string]cacheEntry{},
	}
	payload, why := cachefile.Read(c.path, cacheMagic)
	if payload == nil {
		c.Ignored = notOurs(why)
		return c
	}
	f, why := decodeCachePayload(payload)
	switch {
	case why != "":
		c.Ignored = why
	case f.StateDir != stateDir:
		c.Ignored = "it belongs to another state dir"
	default:
		c.entries = f.Entries
	}
	return c
}

// decodeCache reads a cache file's bytes: its contents, or why it is not
// used.
func decodeCache(data []byte) (*cacheFile, string) {
	payload, why := cachefile.Decode(data, cacheMagic)
	if payload == nil {
		return nil, notOurs(why)
	}
	return decodeCachePayload(payload)
}

// notOurs words cachefile's reason for a file of something else.
func notOurs(why string) string {
	if why == cachefile.Foreign {
		return "not a usage cache"
	}
	return why
}

func decodeCachePayload(payload []byte) (*cacheFile, string) {
	f, err := decodePayload(payload)
	if err != nil {
		return nil, "undecodable: " + err.Error()
	}
	if f.Version != cacheVersion {
		return nil, fmt.Sprintf("version %d, not %d", f.Version, cacheVersion)
	}
	if f.Entries == nil {
		f.Entries = map[string]cacheEntry{}
	}
	return f, ""
}

// MemoryCache is a cache of stateDir that is never written (there is no
// cache dir): a long-lived reader keeps it in memory.
func MemoryCache(stateDir string) *Cache {
	return &Cache{stateDir: stateDir, entries: map[string]cacheEntry{}}
}

// Path is the cache file ("" for a MemoryCache).
func (c *Cache) Path() string { return c.path }

// Changed reports whether entries changed since the cache was loaded or
// last saved.
func (c *Cache) Changed() bool { return c != nil && c.dirty }

// get returns the parts cached for path at stamp.
func (c *Cache) get(path string, st Stamp) ([]Part, bool) {
	if c == nil {
		return nil, false
	}
	e, ok := c.entries[path]
	if !ok || e.Stamp != st {
		return nil, false
	}
	return e.Parts, true
}

func (c *Cache) put(path string, st Stamp, parts []Part) {
	if c == nil {
		return
	}
	c.entries[path] = cacheEntry{Stamp: st, Parts: parts}
	c.dirty = true
}

// prune drops the entries of files that are gone (deleted or renamed); a
// file this run did not consider (another agent's) keeps its entry.
func (c *Cache) prune(keep map[string]bool) {
	if c == nil {
		return
	}
	for p := range c.entries {
		if keep[p] {
			continue
		}
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			delete(c.entries, p)
			c.dirty = true
		}
	}
}

// Save writes the cache when it changed: a temporary file (0600) in the
// cache dir (0700), synced, renamed over the old one (cachefile.Write) — a
// reader sees the old cache or the new one, never a mix.
func (c *Cache) Save() error { return c.save(cacheVersion) }

func (c *Cache) save(version int) error {
	if c == nil || !c.dirty || c.path == "" {
		return nil
	}
	payload := encodePayload(&cacheFile{Version: version, StateDir: c.stateDir, Entries: c.entries})
	if err := cachefile.Write(c.path, cacheMagic, payload); err != nil {
		return err
	}
	c.dirty = false
	return nil
}
