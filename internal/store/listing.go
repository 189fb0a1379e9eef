package store

import (
	"runtime"
	"strings"
	"sync"
)

// Listing is a store as a listing reads it (issue 38: a big store costs
// what the answer needs): for every entry, in file order, what choosing a
// page takes — its key (which agent, listable), updatedAt (the sort key,
// --active) and spawnedBy (the sandbox's visibility) — and each whole entry
// only when asked for (Entry). A listing of a store read in full hands out
// its entries; one restored from internal/storecache's disk tier decodes the
// asked entry alone, so a 50-row page of a 10,000-entry store decodes about
// 50 entries instead of 10,000.
type Listing struct {
	// St is the store's header: Path, Dir, Missing, JSON5, Skipped. Its
	// Entries are empty when the listing was read lazily: read entries
	// through Entry.
	St *Store

	view ListingView
	// direct are the entries of a store read in full (ListingOf), handed
	// out as they are, no lock
	direct []Entry

	mu       sync.Mutex
	memo     []*Entry
	prefetch func(do func(entry func(i int) *Entry)) // runs do, the decode of every entry, with the entry to use (nil: no need)
}

// ListingView is what a listing reads its entries through: every entry's
// key, spawnedBy and updatedAt, and a whole entry decoded when asked for.
type ListingView interface {
	// Len is the number of entries.
	Len() int
	// Names are entry i's key and spawnedBy. They may point into memory
	// the view owns, valid while the listing is reachable: the listing
	// hands them out only for the length of a call (Scan) or copied (Key).
	Names(i int) (key, spawnedBy string)
	// UpdatedAt is entry i's updatedAt and whether it has one.
	UpdatedAt(i int) (float64, bool)
	// Entry decodes entry i whole, into memory of its own (called at most
	// once per index, under the listing's lock).
	Entry(i int) *Entry
}

// ListingOf is the listing of a store read in full.
func ListingOf(st *Store) *Listing {
	return &Listing{St: st, view: entriesView(st.Entries), direct: st.Entries}
}

// entriesView is the view of entries read in full.
type entriesView []Entry

func (v entriesView) Len() int                            { return len(v) }
func (v entriesView) Names(i int) (key, spawnedBy string) { return v[i].Key, v[i].SpawnedBy }
func (v entriesView) Entry(i int) *Entry                  { return &v[i] }
func (v entriesView) UpdatedAt(i int) (float64, bool) {
	if v[i].UpdatedAt == nil {
		return 0, false
	}
	return *v[i].UpdatedAt, true
}

// NewListing is a listing of the entries of view, whose memory lives as
// long as the listing does. header is the store's header (no entries).
// prefetch, when not nil, runs do, the decode of every entry not asked for
// yet (Prefetch), with the entry function it should use for them, in
// whatever conditions suit that best.
func NewListing(header *Store, view ListingView, prefetch func(do func(entry func(i int) *Entry))) *Listing {
	return &Listing{St: header, view: view, prefetch: prefetch}
}

// Len is the number of entries.
func (l *Listing) Len() int { return l.view.Len() }

// UpdatedAt returns entry i's updatedAt and whether it has one.
func (l *Listing) UpdatedAt(i int) (float64, bool) { return l.view.UpdatedAt(i) }

// Updated is entry i's updatedAt in ms, 0 when missing (Meta.Updated).
func (l *Listing) Updated(i int) int64 {
	u, ok := l.view.UpdatedAt(i)
	if !ok {
		return 0
	}
	return int64(u)
}

// Key is entry i's key.
func (l *Listing) Key(i int) string { k, _ := l.names(i); return k }

// SpawnedBy is entry i's spawnedBy.
func (l *Listing) SpawnedBy(i int) string { _, sb := l.names(i); return sb }

// names are entry i's key and spawnedBy, copied when they may point into
// the view's memory.
func (l *Listing) names(i int) (key, spawnedBy string) {
	l.guard(func() {
		key, spawnedBy = l.view.Names(i)
		if l.direct == nil {
			key, spawnedBy = strings.Clone(key), strings.Clone(spawnedBy)
		}
	})
	return key, spawnedBy
}

// Scan calls fn with every entry's index, key and spawnedBy, in order. The
// strings are valid during the call only (they may point into the memory
// of a cache file): fn keeps a copy of what it keeps (strings.Clone), or
// asks Key later.
func (l *Listing) Scan(fn func(i int, key, spawnedBy string)) {
	l.guard(func() {
		for i := range l.view.Len() {
			k, sb := l.view.Names(i)
			fn(i, k, sb)
		}
	})
}

// guard runs fn, which reads the view's names, as the view wants those
// reads run (a view of a mapped file turns a fault into a panic that says
// the file), with the listing, and so the view's memory, kept meanwhile.
func (l *Listing) guard(fn func()) {
	if g, ok := l.view.(interface{ Guard(func()) }); ok {
		g.Guard(fn)
	} else {
		fn()
	}
	runtime.KeepAlive(l)
}

// Entry returns entry i whole (as the full load gives it); the same
// pointer each time.
func (l *Listing) Entry(i int) *Entry {
	if l.direct != nil {
		return &l.direct[i]
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.memo == nil {
		l.memo = make([]*Entry, l.view.Len())
	}
	if l.memo[i] == nil {
		l.memo[i] = l.view.Entry(i)
	}
	return l.memo[i]
}

// Prefetch reads every entry whole now, in one go, for a caller that is
// about to ask for most of them: entries decoded one by one between other
// work cost more than a decode of them all at once. Nothing to do for a
// listing of a store read in full.
func (l *Listing) Prefetch() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.prefetch == nil {
		return
	}
	if l.memo == nil {
		l.memo = make([]*Entry, l.view.Len())
	}
	l.prefetch(func(entry func(i int) *Entry) {
		for i := range l.memo {
			if l.memo[i] == nil {
				l.memo[i] = entry(i)
			}
		}
	})
	l.prefetch = nil
}

// Select is the listing of the entries of l whose index keep accepts, in
// order.
func (l *Listing) Select(keep func(i int) bool) *Listing {
	var idx []int
	for i := range l.view.Len() {
		if keep(i) {
			idx = append(idx, i)
		}
	}
	if len(idx) == l.view.Len() {
		return l
	}
	out := &Listing{St: l.St, view: selectView{l, idx}}
	if l.prefetch != nil {
		out.prefetch = func(do func(entry func(i int) *Entry)) { l.Prefetch(); do(out.view.Entry) }
	}
	return out
}

// selectView is the view of some of a listing's entries.
type selectView struct {
	from *Listing
	idx  []int
}

func (v selectView) Len() int                            { return len(v.idx) }
func (v selectView) Names(j int) (key, spawnedBy string) { return v.from.view.Names(v.idx[j]) }
func (v selectView) UpdatedAt(j int) (float64, bool)     { return v.from.view.UpdatedAt(v.idx[j]) }
func (v selectView) Entry(j int) *Entry                  { return v.from.Entry(v.idx[j]) }
func (v selectView) Guard(fn func())                     { v.from.guard(fn) }
