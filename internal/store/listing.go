package store

import "sync"

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
	St        *Store
	Keys      []string
	SpawnedBy []string
	updated   []float64 // updatedAt where has[i]
	has       []bool

	direct []Entry // the entries of a store read in full (ListingOf): handed out as they are, no lock

	mu       sync.Mutex
	memo     []*Entry
	entry    func(i int) *Entry
	prefetch func(do func(entry func(i int) *Entry)) // runs do, the decode of every entry, with the entry to use (nil: no need)
}

// ListingOf is the listing of a store read in full.
func ListingOf(st *Store) *Listing {
	l := &Listing{St: st, Keys: make([]string, len(st.Entries)), SpawnedBy: make([]string, len(st.Entries)),
		updated: make([]float64, len(st.Entries)), has: make([]bool, len(st.Entries))}
	for i := range st.Entries {
		e := &st.Entries[i]
		l.Keys[i], l.SpawnedBy[i] = e.Key, e.SpawnedBy
		if e.UpdatedAt != nil {
			l.updated[i], l.has[i] = *e.UpdatedAt, true
		}
	}
	l.direct = st.Entries
	l.entry = func(i int) *Entry { return &st.Entries[i] }
	return l
}

// NewListing is a listing of n entries whose whole entries are read by
// entry (called at most once per index, under a lock). header is the
// store's header (no entries); the slices have n elements: updated[i] is
// the entry's updatedAt when has[i].
// prefetch, when not nil, runs do, the decode of every entry not asked for
// yet (Prefetch), with the entry function it should use for them, in
// whatever conditions suit that best.
func NewListing(header *Store, keys, spawnedBy []string, updated []float64, has []bool, entry func(i int) *Entry, prefetch func(do func(entry func(i int) *Entry))) *Listing {
	return &Listing{St: header, Keys: keys, SpawnedBy: spawnedBy, updated: updated, has: has, entry: entry, prefetch: prefetch}
}

// Len is the number of entries.
func (l *Listing) Len() int { return len(l.Keys) }

// UpdatedAt returns entry i's updatedAt and whether it has one.
func (l *Listing) UpdatedAt(i int) (float64, bool) { return l.updated[i], l.has[i] }

// Updated is entry i's updatedAt in ms, 0 when missing (Meta.Updated).
func (l *Listing) Updated(i int) int64 {
	if !l.has[i] {
		return 0
	}
	return int64(l.updated[i])
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
		l.memo = make([]*Entry, len(l.Keys))
	}
	if l.memo[i] == nil {
		l.memo[i] = l.entry(i)
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
		l.memo = make([]*Entry, len(l.Keys))
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
	for i := range l.Keys {
		if keep(i) {
			idx = append(idx, i)
		}
	}
	if len(idx) == len(l.Keys) {
		return l
	}
	out := &Listing{St: l.St, Keys: make([]string, len(idx)), SpawnedBy: make([]string, len(idx)),
		updated: make([]float64, len(idx)), has: make([]bool, len(idx))}
	for j, i := range idx {
		out.Keys[j], out.SpawnedBy[j], out.updated[j], out.has[j] = l.Keys[i], l.SpawnedBy[i], l.updated[i], l.has[i]
	}
	out.entry = func(j int) *Entry { return l.Entry(idx[j]) }
	if l.prefetch != nil {
		out.prefetch = func(do func(entry func(i int) *Entry)) { l.Prefetch(); do(out.entry) }
	}
	return out
}
