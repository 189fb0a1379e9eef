package searchindex

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/sqlitestore"
)

// Backlog is how much an Update of a set of sources would read, told from
// the stamps alone (Index.Backlog): what a search weighs before it pays
// for an update.
type Backlog struct {
	// Sources counts the sources new or changed since they were indexed
	// (a gone one costs nothing to remove and is not counted).
	Sources int
	// Bytes is what the update would read of them: a transcript file
	// appended to (same inode, not shorter than what was indexed) its new
	// bytes; a new, rewritten or replaced file, a zstd file and a store's
	// archive, their size; a store session the index does not hold, its
	// share of the store's size (as Progress counts it). A session the
	// index holds, of a store that changed, counts no bytes: the update
	// asks the store which sessions' events moved and reads those alone,
	// which the stamps cannot tell without that query.
	Bytes int64
	// Total is the bytes of every source (as Progress counts them): the
	// state's transcripts, what a scan of all of them reads.
	Total int64
	// Stamps are the stamps taken: an update right after
	// (UpdateStamped) need not take them again.
	Stamps Stamps
}

// Backlog tells how far the index is behind srcs (every transcript of the
// state dir, as Update takes them) without reading a transcript: a stat
// per transcript file and per store, the index's manifest (and journal)
// as another process last left them. It takes no lock and writes nothing.
// A damaged index is a *CorruptError.
func (ix *Index) Backlog(srcs []search.Source) (Backlog, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.load(); err != nil {
		return Backlog{}, err
	}
	m := ix.man
	p := ix.sourcesOf(srcs)
	order, ids := p.order, p.ids
	type store struct {
		st       stamp
		err      error
		size     int64
		sessions int64
	}
	b := Backlog{Stamps: Stamps{files: map[string]stamp{}, stores: map[string]stamp{}, listed: true,
		of: sliceOf(srcs), man: m, order: order, ids: ids, at: p.at, kept: p.kept}}
	same := 0 // the sources whose stamp is the one indexed, that UpdateStamped takes as such
	stores := map[string]*store{}
	var lastDB *sqlitestore.DB // a store's sessions come one after another
	var last *store
	storeOf := func(db *sqlitestore.DB) *store {
		if db == lastDB && last != nil {
			return last
		}
		path := db.Path()
		if s := stores[path]; s != nil {
			lastDB, last = db, s
			return s
		}
		s := &store{}
		s.st, s.err = dbStamp(path)
		stores[path] = s
		if s.err == nil {
			b.Stamps.stores[path] = s.st
		}
		lastDB, last = db, s
		return s
	}
	// A store's size is shared out among its sessions (sourceSizes).
	for _, i := range order {
		if src := &srcs[i]; src.DB != nil && src.Archive == nil {
			storeOf(src.DB).sessions++
		}
	}
	for path, s := range stores {
		if fi, err := os.Stat(path); err == nil {
			s.size = fi.Size()
		}
		if wi, err := os.Stat(path + "-wal"); err == nil {
			s.size += wi.Size()
		}
	}
	for k, i := range order {
		src := &srcs[i]
		var cur stamp
		var size int64
		switch {
		case src.Archive != nil:
			s := storeOf(src.DB)
			if s.err != nil {
				b.Stamps.read = append(b.Stamps.read, k)
				continue // gone or unreadable: the update says so
			}
			cur, size = s.st, src.Archive.Bytes
		case src.DB != nil:
			s := storeOf(src.DB)
			if s.err != nil {
				b.Stamps.read = append(b.Stamps.read, k)
				continue
			}
			cur, size = s.st, s.size/max(s.sessions, 1)
		default:
			// The listing's stamp (one batch of lstats per directory)
			// when it took one: never a second stat of the file.
			if ls, ok := listedStamp(src); ok {
				cur, size = ls, ls.Size
				break
			}
			if src.Stat != nil && !src.Stat.OK {
				b.Stamps.read = append(b.Stamps.read, k)
				continue // gone since it was listed
			}
			if testHookBacklogStat != nil {
				testHookBacklogStat(src.Path)
			}
			fi, err := os.Stat(src.Path)
			if err != nil {
				b.Stamps.read = append(b.Stamps.read, k)
				continue
			}
			cur, size = stampOf(fi), fi.Size()
			if fi.Mode().IsRegular() {
				b.Stamps.files[src.Path] = cur
			}
		}
		b.Total += size
		j := p.at[k]
		if j < 0 || m.srcs[j].kind != kindOf(src) {
			b.Sources++
			b.Bytes += size
			b.Stamps.read = append(b.Stamps.read, k)
			continue
		}
		r := &m.srcs[j]
		if cur == r.stamp || r.kind == kindEvents && m.storeCurrent(src.DB.Path(), cur) {
			if b.Stamps.has(src) {
				same++
			} else {
				b.Stamps.read = append(b.Stamps.read, k)
			}
			continue
		}
		b.Stamps.read = append(b.Stamps.read, k)
		b.Sources++
		switch kindOf(src) {
		case kindEvents:
			// the store changed: the sessions whose events moved are read
		case kindFile:
			if r.stamp.Ino == cur.Ino && cur.Size >= r.to && r.to > 0 {
				b.Bytes += cur.Size - r.to
			} else {
				b.Bytes += size
			}
		default:
			b.Bytes += size
		}
	}
	// Every source listed is indexed as it is, and every source indexed
	// is listed: an update with these stamps has nothing to do, as long
	// as the index is still this manifest.
	if same == len(order) && same == len(m.srcs) && !ix.at.Equal(fsutil.Stamp{}) && len(m.segs) <= ix.maxSegs {
		b.Stamps.clean = m
	}
	return b, nil
}

// sourcePlan is what a set of sources comes to against a manifest: the
// sources without duplicates (order: their positions in the slice given),
// their ids, and where each one's record of its id is in the manifest's
// records (at: -1 none; of any kind).
type sourcePlan struct {
	keys  []sourceKey // of every source given, in its order
	order []int
	ids   []string
	man   *manifest
	at    []int32
	kept  int // the records of man a source names (at >= 0)
	// dups: the sources left out of order as another's duplicate (two
	// entries naming one transcript), each with the k of the one kept.
	dups []dupSource
	// pos: where each id is, made from order, ids and dups when first
	// asked for (Index.Positions; mu held).
	pos *Positions
}

// dupSource is a source left out as a duplicate: its position, and the
// index in order and ids of the source of the same id that was kept.
type dupSource struct{ pos, k int32 }

// sourceKey is what names a source (SourceID's parts), without a string
// made of them.
type sourceKey struct {
	kind uint8
	a, b string // a file: its path; a store's session (or archive): the store's path, its id (name)
}

func keyOf(src *search.Source) sourceKey {
	switch {
	case src.Archive != nil:
		return sourceKey{kindWhole, src.DB.Path(), src.Archive.Name}
	case src.DB != nil:
		return sourceKey{kindEvents, src.DB.Path(), src.SessionID}
	}
	// a zstd file is named as a plain one (SourceID), its kind is not
	return sourceKey{kindFile, src.Path, ""}
}

// sourcesOf is the plan of srcs against ix.man (mu held, loaded). The
// last one is kept: sources naming the same ones in the same order (the
// next search's, as a listing hands them over) take its ids again, and,
// against the same manifest (or one an update edited in place), its
// records, instead of a SourceID made and looked up per source. A plan
// is never changed once made (Stamps holds its slices).
func (ix *Index) sourcesOf(srcs []search.Source) *sourcePlan {
	p := &ix.known
	same := len(p.keys) == len(srcs)
	for i := 0; same && i < len(srcs); i++ {
		same = p.keys[i] == keyOf(&srcs[i])
	}
	ix.knownOf = sliceOf(srcs)
	switch {
	case !same:
		*p = ix.planOf(srcs)
	case p.man != ix.man:
		at, kept := make([]int32, len(p.ids)), 0
		j := -1
		for k, id := range p.ids {
			j = findFrom(ix.man, j+1, id)
			at[k] = int32(j)
			if j >= 0 {
				kept++
			}
		}
		p.man, p.at, p.kept = ix.man, at, kept
	}
	return p
}

// planOf is the plan of srcs against ix.man made anew: each source's id
// made in one buffer and looked up as it is (the one of its record, when
// the manifest has one, is that record's: no string made), the sources
// without duplicates kept in their order, as uniqueSourceIDs keeps them.
func (ix *Index) planOf(srcs []search.Source) sourcePlan {
	m := ix.man
	p := sourcePlan{keys: make([]sourceKey, len(srcs)), order: make([]int, 0, len(srcs)),
		ids: make([]string, 0, len(srcs)), at: make([]int32, 0, len(srcs)), man: m}
	taken := make([]int32, len(m.srcs)) // the records a source named already: 1 + its k
	var fresh map[string]int32          // the ids of sources without a record: their k
	var buf []byte
	j := -1
	for i := range srcs {
		p.keys[i] = keyOf(&srcs[i])
		buf = AppendSourceID(buf[:0], &srcs[i])
		if j = findFrom(m, j+1, buf); j >= 0 {
			if k := taken[j]; k > 0 {
				p.dups = append(p.dups, dupSource{int32(i), k - 1})
				continue
			}
			taken[j] = int32(len(p.order)) + 1
			p.order, p.ids, p.at = append(p.order, i), append(p.ids, m.srcs[j].id), append(p.at, int32(j))
			p.kept++
			continue
		}
		if k, ok := fresh[string(buf)]; ok {
			p.dups = append(p.dups, dupSource{int32(i), k})
			continue
		}
		if fresh == nil {
			fresh = map[string]int32{}
		}
		id := string(buf)
		fresh[id] = int32(len(p.order))
		p.order, p.ids, p.at = append(p.order, i), append(p.ids, id), append(p.at, -1)
	}
	return p
}

// testHookBacklogStat, when set, is told of each transcript file Backlog
// stats itself.
var testHookBacklogStat func(path string)

// listedStamp is the stamp of a transcript file its listing took
// (search.Source.Stat), when it took one of a regular file.
func listedStamp(src *search.Source) (stamp, bool) {
	st := src.Stat
	if st == nil || !st.OK || !st.Mode.IsRegular() {
		return stamp{}, false
	}
	return stamp{Size: st.Size, MTime: st.MtimeNano, Ino: st.Ino, CTime: st.CtimeNano}, true
}

// Updating reports whether a process holds the write lock of the index in
// dir (Status.Dir) now: an update or a build under way. It creates nothing.
func Updating(dir string) bool {
	path := filepath.Join(dir, "lock")
	if _, err := os.Lstat(path); err != nil {
		return false
	}
	ix := &Index{dir: dir}
	busy, err := ix.Busy()
	return err == nil && busy
}

// Busy reports whether another process holds the index's write lock now
// (an update or a build under way), without waiting for it. An error: the
// lock cannot be taken at all (a read-only cache dir).
func (ix *Index) Busy() (bool, error) {
	if _, err := os.Lstat(ix.dir); errors.Is(err, fs.ErrNotExist) {
		return false, nil // removed: no one updates it (the next update makes it again)
	}
	fl := flock.New(filepath.Join(ix.dir, "lock"), flock.SetPermissions(0o600))
	defer fl.Close()
	ok, err := fl.TryLock()
	if err != nil {
		return false, fmt.Errorf("search index: %w", err)
	}
	if ok {
		fl.Unlock()
	}
	return !ok, nil
}
