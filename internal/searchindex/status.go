package searchindex

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/search"
)

// Status is one index of a state dir as it is on disk (Inspect): the
// operator's (raw) or one of the masked ones agents' searches keep.
type Status struct {
	Dir    string
	Masked bool
	// Size is the bytes of its files on disk.
	Size int64
	// Built: it has a manifest (an index that was never brought up to
	// date has none).
	Built bool
	// Sources and Messages are what it holds; Bytes the transcript bytes
	// of those of its sources still among the state's (as Progress
	// counts them).
	Sources, Messages int
	Bytes             int64
	// Updated is when it was last brought up to date (its manifest or
	// journal last written).
	Updated time.Time
	// Changed counts the sources that changed since (new, changed or
	// gone: what the next update reads; a store's sessions count when the
	// store changed); -1 for a masked index (it holds what one requester
	// may see, not every source).
	Changed int
	// Corrupt says why it cannot be read ("" when it can): the next
	// search rebuilds it.
	Corrupt string
}

// Inspect reports the indexes kept for the state dir stateKey names under
// cacheDir — its raw index first, then the masked ones — and how fresh the
// raw one is against srcs (every transcript of the state dir, as Update
// takes them). It writes nothing and takes no lock: it reads the files a
// search reads, so it sees the index as of one update or the next. No
// index yet: none (and no error).
func Inspect(cacheDir, stateKey string, srcs []search.Source) ([]Status, error) {
	dirs, err := indexDirs(filepath.Join(cacheDir, stateKey))
	if err != nil {
		return nil, err
	}
	var out []Status
	for _, d := range dirs {
		out = append(out, inspect(d, filepath.Base(d) != "raw", srcs))
	}
	slices.SortStableFunc(out, func(a, b Status) int {
		return cmp.Or(cmpBool(a.Masked, b.Masked), strings.Compare(a.Dir, b.Dir))
	})
	return out, nil
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func inspect(dir string, masked bool, srcs []search.Source) Status {
	st := Status{Dir: dir, Masked: masked, Changed: -1}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			st.Size += fi.Size()
			if n := e.Name(); (n == "manifest" || n == "journal") && fi.ModTime().After(st.Updated) {
				st.Updated = fi.ModTime()
			}
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "manifest")); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			st.Corrupt = err.Error()
		}
		if !masked {
			st.Changed = len(uniqueSources(srcs))
		}
		return st
	}
	st.Built = true
	ix := &Index{dir: dir, segs: map[uint32]*segment{}, maps: map[uint32][]byte{}}
	defer ix.Close()
	msgs, err := ix.liveMessages()
	if err != nil {
		st.Corrupt = err.Error()
		return st
	}
	m := ix.man
	st.Sources, st.Messages = len(m.srcs), msgs
	order := uniqueSources(srcs)
	sizes := sourceSizes(srcs, order)
	seen := make(map[string]bool, len(order))
	changed := 0
	for k, i := range order {
		src := &srcs[i]
		id := SourceID(src)
		seen[id] = true
		j, ok := m.find(id)
		if ok {
			st.Bytes += sizes[k]
		}
		if !ok || m.srcs[j].kind != kindOf(src) {
			changed++
			continue
		}
		r := &m.srcs[j]
		if cur, err := currentStamp(src); err != nil || cur != r.stamp && !(r.kind == kindEvents && m.storeCurrent(src.DB.Path(), cur)) {
			changed++
		}
	}
	for _, r := range m.srcs {
		if !seen[r.id] {
			changed++
		}
	}
	if !masked {
		st.Changed = changed
	}
	return st
}

// uniqueSources are the positions of srcs' distinct sources, as Update
// takes them.
func uniqueSources(srcs []search.Source) []int {
	order, _ := uniqueSourceIDs(srcs)
	return order
}

// uniqueSourceIDs is uniqueSources with the SourceID of each.
func uniqueSourceIDs(srcs []search.Source) (order []int, ids []string) {
	seen := make(map[string]bool, len(srcs))
	for i := range srcs {
		if id := SourceID(&srcs[i]); !seen[id] {
			seen[id] = true
			order, ids = append(order, i), append(ids, id)
		}
	}
	return order, ids
}

// currentStamp is a source's stamp now, as Update compares it.
func currentStamp(src *search.Source) (stamp, error) {
	if kindOf(src) == kindEvents || src.Archive != nil {
		return dbStamp(src.DB.Path())
	}
	fi, err := os.Stat(src.Path)
	if err != nil {
		return stamp{}, err
	}
	return stampOf(fi), nil
}

// liveMessages loads ix and counts the messages of its segments that live.
// A segment's document table is read from its file (eachDoc), not from
// the mapping load made: one a concurrent merge removed since sends the
// count back to the manifest, as load does.
func (ix *Index) liveMessages() (int, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for attempt := 0; ; attempt++ {
		if err := ix.load(); err != nil {
			return 0, err
		}
		if testHookCounting != nil {
			testHookCounting()
		}
		m, n := ix.man, 0
		var err error
		for _, id := range m.segs {
			err = eachDoc(ix.dir, id, func(d doc) {
				if r := m.rec(d.src); r != nil && live(r, id, d) {
					n++
				}
			})
			if err != nil {
				break
			}
		}
		if err == nil || attempt == 4 || !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		ix.man = nil // a segment went away under us: read the manifest again
	}
}

// testHookCounting, when set, runs between liveMessages' load and its
// count.
var testHookCounting func()
