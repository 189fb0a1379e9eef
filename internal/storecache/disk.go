package storecache

// The disk tier: the parsed stores kept between processes, in the user's
// cache directory, so that a process that lists 50 rows of a 10,000-entry
// store does not parse 54 MB to find them.
//
// A cache file holds what a lean load gives (store.LoadMeta, the SQLite
// store's StoreMeta): every entry's key and Meta, in order, with the store's
// flags and the warnings its load gave — never a byte of an entry's raw JSON
// (readers that need it, state.EntryRaw, read it again from the store, as
// they do after any lean load of a big store). It is kept with the versions
// of the store's files at the read (the same versions and the same rule for
// recent writes as the in-memory tier: a version is trusted only when the
// file last changed at least RacyWindow before the read began, and the file
// was the same version before and after the read), and served only while
// every file is still exactly that version, checked by one stat per file on
// every call. A write by OpenClaw between two calls changes the size, the
// mtime or the ctime (or, by rename, the inode) of a file, so the next call
// reads the store again; a write in the same tick as a read leaves the read
// untrusted, so it is never written to the cache.
//
// A cache file is also tied to the executable that wrote it (its device,
// inode, size and times): another build of sessions, whose parser may read
// a store differently, treats it as foreign. A file that is not ours (wrong
// magic, format, key, checksum, owner or mode; truncated; undecodable) is
// ignored and the store parsed in full; so is a cache directory that cannot
// be created or written (read-only, full): the answer never depends on the
// cache, only its cost. Files are written to a temporary file (0600) in the
// cache directory (0700) and renamed over the old one, so a reader sees one
// whole file or the other; there is no fsync: a file torn by a crash fails
// its length or checksum and is ignored.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"crypto/sha256"
	"encoding/hex"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/mapfile"
	"github.com/openclaw/sessions/internal/store"
)

// DefaultMinSize is the size (all of a store's files together) from which
// the disk tier keeps a store: 8 MiB, the size from which a lean load of
// sessions.json keeps no raw entries anyway (store.LoadMeta's parallel
// read); a smaller store is parsed in a few milliseconds.
const DefaultMinSize = 8 << 20

// maxCacheFile bounds what is read of a cache file.
const maxCacheFile = 1 << 30

// Disk is the disk tier: the cache files in one directory.
type Disk struct {
	dir     string
	minSize int64
	now     func() time.Time

	exeOnce sync.Once
	exe     Version // the running executable's version; exists=false: no cache
}

// NewDisk returns a disk tier in dir (created on first write, 0700),
// keeping stores of at least minSize bytes.
func NewDisk(dir string, minSize int64) *Disk {
	return &Disk{dir: dir, minSize: minSize, now: time.Now}
}

// Dir is where the cache files are.
func (d *Disk) Dir() string { return d.dir }

// tier is the process's disk tier (nil: none), set by UseUserCache.
var tier atomic.Pointer[Disk]

// UseUserCache turns the disk tier on for this process:
// os.UserCacheDir()/sessions/stores ($XDG_CACHE_HOME/sessions/stores on
// Linux when set). Without a user cache directory nothing changes.
func UseUserCache() {
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		return
	}
	tier.Store(NewDisk(filepath.Join(d, "sessions", "stores"), DefaultMinSize))
}

// SetDisk makes d the process's disk tier (nil: none) and returns the one
// it replaces (for tests).
func SetDisk(d *Disk) *Disk { return tier.Swap(d) }

// Load returns the store of key read from files (see Cache.Load) from the
// cache file while every file is the version it was read from, else
// load's, which it keeps when the read can be trusted. d may be nil: load.
func (d *Disk) Load(key string, files []string, warn func(string), load func(warn func(string)) (*store.Store, error)) (*store.Store, error) {
	st, _, err := d.load(key, files, warn, load, false)
	return st, err
}

// LoadListing is Load for a listing (store.Listing): from the cache file,
// every entry's key, updatedAt and spawnedBy, and each whole entry decoded
// only when the listing asks for it; else the listing of load's store (kept
// as Load keeps it).
func (d *Disk) LoadListing(key string, files []string, warn func(string), load func(warn func(string)) (*store.Store, error)) (*store.Listing, error) {
	st, l, err := d.load(key, files, warn, load, true)
	if err != nil || l != nil {
		return l, err
	}
	return store.ListingOf(st), nil
}

func (d *Disk) load(key string, files []string, warn func(string), load func(warn func(string)) (*store.Store, error), lazy bool) (*store.Store, *store.Listing, error) {
	if d == nil {
		st, err := load(warn)
		return st, nil, err
	}
	start := d.now()
	before, err := versionsOf(files)
	if err != nil || totalSize(before) < d.minSize || !d.exeKnown() {
		st, err := load(warn)
		return st, nil, err
	}
	path := d.file(key)
	if !racy(before, start) {
		if st, l, warns, ok := d.read(path, key, files, before, lazy); ok {
			for _, w := range warns {
				warn(w)
			}
			return st, l, nil
		}
	}
	var warns []string
	st, err := load(func(msg string) {
		warns = append(warns, msg)
		warn(msg)
	})
	if err != nil {
		return nil, nil, err
	}
	after, aerr := versionsOf(files)
	if aerr == nil && sameVersions(before, after) && !racy(before, start) {
		_ = d.write(path, encode(d.exe, key, files, before, warns, st))
	}
	return st, nil, nil
}

func totalSize(vs []Version) int64 {
	var n int64
	for _, v := range vs {
		n += v.size
	}
	return n
}

// exeKnown reports whether the executable's version is known (else nothing
// is cached: a cache could not be told from another build's).
func (d *Disk) exeKnown() bool {
	d.exeOnce.Do(func() {
		p, err := os.Executable()
		if err != nil {
			return
		}
		v, err := versionOf(p)
		if err == nil {
			d.exe = v
		}
	})
	return d.exe.exists
}

// file is the cache file of key.
func (d *Disk) file(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(d.dir, hex.EncodeToString(sum[:12])+".store")
}

// owned reports whether fi (of the cache dir or a cache file) is this
// user's and no one else's: owned by the effective uid, no permission for
// group or others.
func owned(fi os.FileInfo) bool {
	if fi.Mode().Perm()&0o077 != 0 {
		return false
	}
	uid, ok := fsutil.Owner(fi)
	return !ok || uid == os.Geteuid()
}

// dirOK reports whether the cache dir is a directory that is ours.
func (d *Disk) dirOK() bool {
	fi, err := os.Lstat(d.dir)
	return err == nil && fi.IsDir() && owned(fi)
}

// read returns the store of the cache file at path when it is ours, whole,
// and of exactly the versions vers of files.
// With lazy, the answer is a listing (store.Listing) whose entries are
// decoded when asked for, and no store.
func (d *Disk) read(path, key string, files []string, vers []Version, lazy bool) (*store.Store, *store.Listing, []string, bool) {
	if !d.dirOK() {
		return nil, nil, nil, false
	}
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, nil, nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !owned(fi) || fi.Size() < int64(len(diskMagic))+8 || fi.Size() > maxCacheFile {
		return nil, nil, nil, false
	}
	defer holdGC()()
	if lazy && mapfile.Mmap {
		if data, err := mapfile.Map(f, int(fi.Size())); err == nil {
			return readMapped(data, key, files, vers, d.exe)
		}
		// a file system that cannot map it: read it
	}
	data := make([]byte, fi.Size())
	if err := readAt(f, data); err != nil {
		return nil, nil, nil, false
	}
	if lazy {
		l, warns, ok := decodeListing(data, d.exe, key, files, vers)
		return nil, l, warns, ok
	}
	st, warns, ok := decode(data, d.exe, key, files, vers)
	return st, nil, warns, ok
}

// readMapped is read for a listing from data, a mapping of the cache file
// (mapfile.Map), instead of a copy: a list call reads the keys and updatedAt of every
// entry and about 50 entries whole, so most of the file's pages are only
// looked at once, and those of a mapping come from the page cache in runs
// (the kernel's fault-around), where a copy faults in a fresh page of heap
// for every 4 KiB. `list --json` on the 10,000-entry sessions.json (a 2.2 MB
// cache file) took ~530 page faults for that copy; with the mapping, ~35.
// The listing reads the keys, spawnedBy and updatedAt in the records where
// they are, in the mapping: a copy of them took ~200 more (the default page
// of that store, 1,208 page faults with the copy, 1,005 without).
//
// Nothing the listing keeps beyond a call points into the mapping (the
// names are handed out for the length of a Scan, or copied; each entry is
// decoded from a copy of its bytes), so the mapping is released once the
// listing is unreachable. A cache file is only ever replaced by rename,
// never cut short in place; one cut short while it is mapped faults where
// it is read: while it is checked here, that is a file not read (the store
// is parsed); later, in a Scan or an entry's copy, a panic that says a
// cache file was cut short.
func readMapped(data []byte, key string, files []string, vers []Version, exe Version) (*store.Store, *store.Listing, []string, bool) {
	var l *store.Listing
	var warns []string
	ok := false
	if mapfile.Guard(func() error {
		l, warns, ok = decodeListing(data, exe, key, files, vers)
		return nil
	}) != nil || !ok {
		mapfile.Unmap(data)
		return nil, nil, nil, false
	}
	runtime.AddCleanup(l, func(b []byte) { mapfile.Unmap(b) }, data)
	return nil, l, warns, true
}

// holdGC puts off collections while a cache file is decoded, and returns
// the function that ends that. The entries are written in one go, pointers
// and all, and none of it is garbage: a collection during the decode would
// only trace them through its write barriers, and one due the moment it
// ends (the heap has just doubled) would only mark them. So the next
// collection is set for when the heap has grown by GOGC% over what it is
// after the decode — as if one had just ended there — and once a
// collection has run, GOGC is what it was (unless someone else has set it
// meanwhile: then theirs is left, and looked at again after the next
// collections, up to 8). GOGC=off stays off. Decodes take turns.
//
// GOGC is the process's, and a library should leave it alone unless it
// buys much: this buys a quarter of a cached list call. `sessions list`
// on a 10,000-entry sessions.json (54 MB) with its cache file warm, whole
// processes alternated, 25 rounds, medians, 2 loaded cores (2026-11-29):
// 38.6 ms CPU (65.2 ms wall) with the hold, 50.7 ms CPU (93.8 ms wall)
// without; `list --json`: 33.9 against 47.5 ms CPU. Without it a fresh
// process (a 4 MiB first goal) collects several times while the entries
// are written, tracing them each time.
func holdGC() (done func()) {
	gcHold.Lock()
	prev := debug.SetGCPercent(-1)
	if prev != gcHold.raised || gcHold.raised == 0 {
		gcHold.base = prev // not ours: the process's own setting
	}
	base := gcHold.base
	if base < 0 {
		debug.SetGCPercent(prev)
		return gcHold.Unlock
	}
	return func() {
		defer gcHold.Unlock()
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(sample)
		live, now := sample[0].Value, sample[1].Value
		p := float64(base)
		if live.Kind() == metrics.KindUint64 && now.Kind() == metrics.KindUint64 {
			// wanted: a goal of now*(1+base/100); the runtime's is
			// live*(1+p/100), or before the first collection (live 0) its
			// minimum heap, 4 MiB*p/100
			want := float64(now.Uint64()) * (1 + float64(base)/100)
			if l := float64(live.Uint64()); l > 0 {
				p = (want/l - 1) * 100
			} else {
				p = want / (4 << 20) * 100
			}
		}
		if p <= float64(base) {
			debug.SetGCPercent(base)
			gcHold.raised = 0
			return
		}
		gcHold.raised, gcHold.looks = int(min(p, math.MaxInt32)), 0
		debug.SetGCPercent(gcHold.raised)
		afterGC(lowerGC)
	}
}

// gcHold is holdGC's state: the process's own GOGC (base), the one holdGC
// set (raised, 0 when none is in force) and how often lowerGC found another
// in its place (looks; it stops looking after 8 collections).
var gcHold struct {
	sync.Mutex
	base, raised, looks int
}

// lowerGC puts GOGC back to the process's own once a collection has run,
// if it is still the one holdGC set; if someone else has set another
// meanwhile, it looks again after the next collection.
func lowerGC() {
	gcHold.Lock()
	defer gcHold.Unlock()
	if gcHold.raised == 0 {
		return
	}
	if cur := debug.SetGCPercent(gcHold.base); cur != gcHold.raised {
		debug.SetGCPercent(cur)
		if gcHold.looks++; gcHold.looks < 8 {
			afterGC(lowerGC)
		} else {
			gcHold.raised = 0 // theirs it stays
		}
		return
	}
	gcHold.raised = 0
}

// afterGC runs fn (on the finalizer goroutine) after the next collection.
func afterGC(fn func()) {
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) { fn() })
}

func readAt(f *os.File, p []byte) error {
	n, err := f.ReadAt(p, 0)
	if n == len(p) {
		return nil
	}
	if err == nil {
		err = errors.New("short read")
	}
	return err
}

// write puts data at path: a temporary file in the cache dir, renamed over
// the old one.
func (d *Disk) write(path string, data []byte) error {
	if err := os.MkdirAll(d.dir, 0o700); err != nil {
		return err
	}
	if !d.dirOK() {
		return errors.New("cache dir not ours")
	}
	tmp, err := os.CreateTemp(d.dir, ".store-*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil && cerr == nil {
		if werr = os.Chmod(name, 0o600); werr == nil {
			if werr = os.Rename(name, path); werr == nil {
				return nil
			}
		}
	}
	os.Remove(name)
	return errors.Join(werr, cerr)
}

// The format: diskMagic, the CRC-32C of the rest, then the payload: the
// format version, the executable's version, the key, the files and their
// versions, the store (path, flags, skipped, warnings), the number of
// entries n, n records of recSize bytes, and the n entries, one after the
// other. A record is what a listing reads of every entry without decoding
// it, at fixed places (little-endian): its updatedAt (float64 bits), the
// entry's offset in the entries and its length (the top bit set when the
// entry has an updatedAt), and the offset in the entry and the length of
// its key and of its spawnedBy.
const (
	diskMagic  = "sessions-store-cache\n"
	diskFormat = 2
	recSize    = 32
	recHas     = 1 << 31
)

// castagnoli is the CRC-32C table, made on first use (no work at start).
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Meta's pointer fields, by bit of an entry's mask.
const (
	bUpdatedAt = 1 << iota
	bContextTokens
	bTotalTokens
	bInputTokens
	bOutputTokens
	bSystemSent
	bSystemSentTrue
	bAbortedLastRun
	bAbortedLastRunTrue
	bDC
)

// spawnedByString is SpawnedBy's place in metaStrings.
const spawnedByString = 2

// metaStrings are Meta's string fields, in the order they are stored.
func metaStrings(m *store.Meta) [17]*string {
	return [17]*string{&m.SessionID, &m.SessionFile, &m.SpawnedBy, &m.Label, &m.DisplayName, &m.Channel,
		&m.ChatType, &m.LastChannel, &m.LastTo, &m.LastAccountID, &m.Model, &m.ModelProvider,
		&m.ModelOverride, &m.ProviderOverride, &m.ThinkingLevel, &m.VerboseLevel, &m.SendPolicy}
}

type enc struct{ b []byte }

func (e *enc) u(v uint64)   { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) i(v int64)    { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) s(v string)   { e.u(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) f(v *float64) { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(*v)) }
func (e *enc) ver(v Version) {
	x := uint64(0)
	if v.exists {
		x = 1
	}
	e.u(x)
	e.u(v.dev)
	e.u(v.ino)
	e.i(v.size)
	e.i(v.mtime)
	e.i(v.ctime)
}

// encode is the cache file of st, read from files at vers.
func encode(exe Version, key string, files []string, vers []Version, warns []string, st *store.Store) []byte {
	e := &enc{b: make([]byte, 0, 64+len(st.Entries)*160)}
	e.b = append(e.b, diskMagic...)
	e.b = append(e.b, 0, 0, 0, 0) // the checksum
	e.u(diskFormat)
	e.ver(exe)
	e.s(key)
	e.u(uint64(len(files)))
	for i, p := range files {
		e.s(p)
		e.ver(vers[i])
	}
	e.s(st.Path)
	flags := uint64(0)
	if st.Missing {
		flags |= 1
	}
	if st.JSON5 {
		flags |= 2
	}
	e.u(flags)
	e.u(uint64(st.Skipped))
	e.u(uint64(len(warns)))
	for _, w := range warns {
		e.s(w)
	}
	e.u(uint64(len(st.Entries)))
	recs := len(e.b)
	e.b = append(e.b, make([]byte, recSize*len(st.Entries))...)
	ents := len(e.b)
	for i := range st.Entries {
		en := &st.Entries[i]
		m := &en.Meta
		start := len(e.b)
		e.s(en.Key)
		keyOff, sbOff := len(e.b)-len(en.Key)-start, 0
		mask := uint64(0)
		for _, p := range []struct {
			set bool
			bit uint64
		}{{m.UpdatedAt != nil, bUpdatedAt}, {m.ContextTokens != nil, bContextTokens}, {m.TotalTokens != nil, bTotalTokens},
			{m.InputTokens != nil, bInputTokens}, {m.OutputTokens != nil, bOutputTokens}, {m.DC != nil, bDC},
			{m.SystemSent != nil, bSystemSent}, {m.SystemSent != nil && *m.SystemSent, bSystemSentTrue},
			{m.AbortedLastRun != nil, bAbortedLastRun}, {m.AbortedLastRun != nil && *m.AbortedLastRun, bAbortedLastRunTrue}} {
			if p.set {
				mask |= p.bit
			}
		}
		e.u(mask)
		for _, p := range []*float64{m.UpdatedAt, m.ContextTokens, m.TotalTokens, m.InputTokens, m.OutputTokens} {
			if p != nil {
				e.f(p)
			}
		}
		for k, p := range metaStrings(m) {
			e.s(*p)
			if k == spawnedByString {
				sbOff = len(e.b) - len(*p) - start
			}
		}
		if m.DC != nil {
			e.s(m.DC.Channel)
			e.s(m.DC.To)
			e.s(m.DC.AccountID)
		}
		rec := e.b[recs+i*recSize : recs+(i+1)*recSize]
		size := uint32(len(e.b) - start)
		if m.UpdatedAt != nil {
			binary.LittleEndian.PutUint64(rec, math.Float64bits(*m.UpdatedAt))
			size |= recHas
		}
		binary.LittleEndian.PutUint32(rec[8:], uint32(start-ents))
		binary.LittleEndian.PutUint32(rec[12:], size)
		binary.LittleEndian.PutUint32(rec[16:], uint32(keyOff))
		binary.LittleEndian.PutUint32(rec[20:], uint32(len(en.Key)))
		binary.LittleEndian.PutUint32(rec[24:], uint32(sbOff))
		binary.LittleEndian.PutUint32(rec[28:], uint32(len(m.SpawnedBy)))
	}
	sum := crc32.Checksum(e.b[len(diskMagic)+4:], castagnoli())
	binary.LittleEndian.PutUint32(e.b[len(diskMagic):], sum)
	return e.b
}

// dec reads a payload; bad is set at the first thing that does not fit.
// Strings point into the payload, which is never changed afterwards.
type dec struct {
	b   []byte
	bad bool
}

func (d *dec) u() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) i() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) s() string {
	var n uint64
	if len(d.b) > 0 && d.b[0] < 0x80 { // most strings are short
		n, d.b = uint64(d.b[0]), d.b[1:]
	} else {
		n = d.u()
	}
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return ""
	}
	if n == 0 {
		return ""
	}
	v := unsafe.String(&d.b[0], int(n))
	d.b = d.b[n:]
	return v
}

func (d *dec) f() float64 {
	if len(d.b) < 8 {
		d.bad, d.b = true, nil
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

func (d *dec) ver() Version {
	var v Version
	v.exists = d.u() == 1
	v.dev, v.ino = d.u(), d.u()
	v.size, v.mtime, v.ctime = d.i(), d.i(), d.i()
	return v
}

// header is what precedes the entries of a cache file: it is whole, of this
// format and executable, of key, and of exactly files at vers (ok); d is
// left at the entries, n of them.
type header struct {
	path    string
	flags   uint64
	skipped uint64
	warns   []string
	n       uint64
}

func decodeHeader(data []byte, exe Version, key string, files []string, vers []Version) (*dec, header, bool) {
	var h header
	if len(data) < len(diskMagic)+4 || string(data[:len(diskMagic)]) != diskMagic {
		return nil, h, false
	}
	sum := binary.LittleEndian.Uint32(data[len(diskMagic):])
	d := &dec{b: data[len(diskMagic)+4:]}
	if crc32.Checksum(d.b, castagnoli()) != sum {
		return nil, h, false
	}
	if d.u() != diskFormat || d.ver() != exe || d.s() != key || d.u() != uint64(len(files)) {
		return nil, h, false
	}
	for i, p := range files {
		if d.s() != p || d.ver() != vers[i] {
			return nil, h, false
		}
	}
	h.path = d.s()
	h.flags = d.u()
	h.skipped = d.u()
	nw := d.u()
	if d.bad || nw > uint64(len(d.b)) {
		return nil, h, false
	}
	h.warns = make([]string, 0, nw)
	for range nw {
		h.warns = append(h.warns, d.s())
	}
	h.n = d.u()
	if d.bad || h.n > uint64(len(d.b)) || h.skipped > math.MaxInt32 {
		return nil, h, false
	}
	return d, h, true
}

// store is the store of h over entries.
func (h header) store(entries []store.Entry) *store.Store {
	return store.Restore(h.path, entries, int(h.skipped), h.flags&1 != 0, h.flags&2 != 0)
}

// arena is where entry puts what an entry points to (its numbers, flags
// and delivery context), allocated once for many entries.
type arena struct {
	floats []float64
	bools  []bool
	dcs    []store.DeliveryContext
	n      int // entries it is for, the capacity of dcs
}

// entry decodes one entry into en (d.bad on anything that does not fit).
func (d *dec) entry(en *store.Entry, a *arena) {
	m := &en.Meta
	en.Key = d.s()
	mask := d.u()
	for _, p := range []struct {
		bit uint64
		to  **float64
	}{{bUpdatedAt, &m.UpdatedAt}, {bContextTokens, &m.ContextTokens}, {bTotalTokens, &m.TotalTokens},
		{bInputTokens, &m.InputTokens}, {bOutputTokens, &m.OutputTokens}} {
		if mask&p.bit != 0 {
			a.floats = append(a.floats, d.f())
			*p.to = &a.floats[len(a.floats)-1]
		}
	}
	if mask&bSystemSent != 0 {
		a.bools = append(a.bools, mask&bSystemSentTrue != 0)
		m.SystemSent = &a.bools[len(a.bools)-1]
	}
	if mask&bAbortedLastRun != 0 {
		a.bools = append(a.bools, mask&bAbortedLastRunTrue != 0)
		m.AbortedLastRun = &a.bools[len(a.bools)-1]
	}
	for _, p := range metaStrings(m) {
		*p = d.s()
	}
	if mask&bDC != 0 {
		if a.dcs == nil {
			a.dcs = make([]store.DeliveryContext, 0, a.n)
		}
		a.dcs = append(a.dcs, store.DeliveryContext{Channel: d.s(), To: d.s(), AccountID: d.s()})
		m.DC = &a.dcs[len(a.dcs)-1]
	}
}

// records splits what follows the header (d.b) into the n records and the
// entries, and checks every record against the entries: the entries one
// after the other, each key and spawnedBy within its entry. (The entries
// themselves are decoded when asked for.)
func records(d *dec, n uint64) (recs, ents []byte, ok bool) {
	if n > uint64(len(d.b))/recSize {
		return nil, nil, false
	}
	recs, ents = d.b[:n*recSize], d.b[n*recSize:]
	end := uint64(0)
	for i := uint64(0); i < n; i++ {
		r := recs[i*recSize:]
		off, size := uint64(binary.LittleEndian.Uint32(r[8:])), uint64(binary.LittleEndian.Uint32(r[12:])&^recHas)
		if off != end ||
			uint64(binary.LittleEndian.Uint32(r[16:]))+uint64(binary.LittleEndian.Uint32(r[20:])) > size ||
			uint64(binary.LittleEndian.Uint32(r[24:]))+uint64(binary.LittleEndian.Uint32(r[28:])) > size {
			return nil, nil, false
		}
		end += size
	}
	return recs, ents, end == uint64(len(ents)) // and so every entry within them
}

// decode returns the store of a cache file when it is whole, of this
// format and executable, of key, and of exactly files at vers: every entry
// decoded, each exactly its record's bytes, its key and spawnedBy where its
// record says.
func decode(data []byte, exe Version, key string, files []string, vers []Version) (*store.Store, []string, bool) {
	d, h, ok := decodeHeader(data, exe, key, files, vers)
	if !ok {
		return nil, nil, false
	}
	recs, ents, ok := records(d, h.n)
	if !ok {
		return nil, nil, false
	}
	v := &recView{recs: recs, ents: ents}
	entries := make([]store.Entry, h.n)
	a := &arena{floats: make([]float64, 0, 5*h.n), bools: make([]bool, 0, 2*h.n), n: int(h.n)}
	for i := range entries {
		b, _ := v.entryBytes(i)
		ed := &dec{b: b}
		ed.entry(&entries[i], a)
		if ed.bad || len(ed.b) != 0 || !v.agrees(i, &entries[i]) {
			return nil, nil, false
		}
	}
	return h.store(entries), h.warns, true
}

// decodeListing is decode for a listing: its records are checked, and
// each entry is decoded only when the listing asks for it (a 50-row page
// of a 10,000-entry store decodes about 50). The listing reads every
// entry's key, spawnedBy and updatedAt in its record, where they are in
// data, which may be a mapping (readMapped): it hands those out for the
// length of a call (store.Listing.Scan) or copied; an entry asked for is
// decoded from a copy of its own bytes (all of them at once for Prefetch).
// An entry that does not decode (a file with a good checksum that is not
// ours) decodes to what fits, never more.
func decodeListing(data []byte, exe Version, key string, files []string, vers []Version) (*store.Listing, []string, bool) {
	d, h, ok := decodeHeader(data, exe, key, files, vers)
	if !ok {
		return nil, nil, false
	}
	recs, ents, ok := records(d, h.n)
	if !ok {
		return nil, nil, false
	}
	h.path = strings.Clone(h.path)
	for i, w := range h.warns {
		h.warns[i] = strings.Clone(w)
	}
	v := &recView{recs: recs, ents: ents}
	n := int(h.n)
	// all at once, as decode does: one slice and one arena, collections put
	// off meanwhile (Listing.Prefetch calls it with the entries not yet
	// asked for)
	prefetch := func(do func(entry func(i int) *store.Entry)) {
		defer holdGC()()
		entries := make([]store.Entry, n)
		all := &arena{floats: make([]float64, 0, 5*n), bools: make([]bool, 0, 2*n), n: n}
		body := own(ents)
		do(func(i int) *store.Entry {
			off := binary.LittleEndian.Uint32(recs[i*recSize+8:])
			(&dec{b: body[off:]}).entry(&entries[i], all)
			return &entries[i]
		})
	}
	return store.NewListing(h.store(nil), v, prefetch), h.warns, true
}

// recView is a listing's view of a cache file's records and entries
// (store.ListingView).
type recView struct {
	recs, ents []byte
}

func (v *recView) Len() int { return len(v.recs) / recSize }

// UpdatedAt reads the record in the mapping, guarded itself (cutShort): it
// is asked for outside a Scan too, once an entry, so without a closure.
func (v *recView) UpdatedAt(i int) (float64, bool) {
	defer cutShort(debug.SetPanicOnFault(true))
	r := v.recs[i*recSize:]
	if binary.LittleEndian.Uint32(r[12:])&recHas == 0 {
		return 0, false
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(r)), true
}

// entryBytes are entry i's bytes, and where they begin in the entries.
func (v *recView) entryBytes(i int) ([]byte, uint32) {
	r := v.recs[i*recSize:]
	off, size := binary.LittleEndian.Uint32(r[8:]), binary.LittleEndian.Uint32(r[12:])&^recHas
	return v.ents[off : off+size], off
}

func (v *recView) Names(i int) (key, spawnedBy string) {
	r := v.recs[i*recSize:]
	b, _ := v.entryBytes(i)
	str := func(at int) string {
		o, n := binary.LittleEndian.Uint32(r[at:]), binary.LittleEndian.Uint32(r[at+4:])
		if n == 0 {
			return ""
		}
		return unsafe.String(&b[o], int(n))
	}
	return str(16), str(24)
}

// agrees reports whether entry i, decoded, has the updatedAt, key and
// spawnedBy its record says.
func (v *recView) agrees(i int, en *store.Entry) bool {
	k, sb := v.Names(i)
	u, has := v.UpdatedAt(i)
	return k == en.Key && sb == en.SpawnedBy && has == (en.UpdatedAt != nil) && (!has || math.Float64bits(u) == math.Float64bits(*en.UpdatedAt))
}

// Entry decodes entry i into memory of its own: a slice for every entry,
// mostly untouched, would still be scanned whole by the first collection.
func (v *recView) Entry(i int) *store.Entry {
	defer cutShort(debug.SetPanicOnFault(true)) // the record, then own's copy
	b, _ := v.entryBytes(i)
	en := new(store.Entry)
	(&dec{b: own(b)}).entry(en, &arena{n: 1})
	return en
}

// cutShort, deferred with the setting debug.SetPanicOnFault(true) replaced,
// puts it back and turns a fault — the file cut short under its mapping —
// into the panic Guard gives; any other panic goes on.
func cutShort(prev bool) {
	debug.SetPanicOnFault(prev)
	if r := recover(); r != nil {
		if _, fault := r.(interface{ Addr() uintptr }); fault {
			panic(fmt.Sprintf("storecache: a cache file was cut short while in use: %v", r))
		}
		panic(r)
	}
}

// Guard runs fn, the listing's reads of the records (store.Listing.Scan),
// with a fault — the file cut short under its mapping — a panic that says
// so, as an entry's copy does (own).
func (v *recView) Guard(fn func()) {
	if err := mapfile.Guard(func() error { fn(); return nil }); err != nil {
		panic(fmt.Sprintf("storecache: a cache file was cut short while in use: %v", err))
	}
}

// own is a copy of b, a part of a cache file's bytes (see readMapped).
func own(b []byte) []byte {
	c := make([]byte, len(b))
	if err := mapfile.Guard(func() error { copy(c, b); return nil }); err != nil {
		panic(fmt.Sprintf("storecache: a cache file was cut short while in use: %v", err))
	}
	return c
}
