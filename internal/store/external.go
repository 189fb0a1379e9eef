package store

import (
	"path/filepath"
	"sync"
)

// This file lets other readers build a Store from entries that do not come
// from a sessions.json — the rows of OpenClaw 2026.8+'s per-agent SQLite
// store (internal/sqlitestore) — so every downstream (rows, lookup by key,
// sessionId resolution) works unchanged.

// EntryMeta reads one entry exactly as parse reads an entry of sessions.json:
// raw must be one valid JSON object (surrounding whitespace allowed); the
// result is its Meta (with the legacy provider → channel migration). ok is
// false for anything else.
func EntryMeta(raw []byte) (m Meta, ok bool) {
	sc := newScanner(raw, 0)
	sc.SkipWS()
	if sc.I >= len(raw) || raw[sc.I] != '{' {
		return Meta{}, false
	}
	m, ok = sc.entry()
	if !ok {
		return Meta{}, false
	}
	sc.SkipWS()
	return m, sc.I == len(raw)
}

// FromEntries returns a Store over entries read elsewhere. path is the file
// they were read from (Store.Path; Store.Dir is its directory); skipped is
// how many source records were left out (Store.Skipped). Entries are kept as
// given (not copied), in order; a repeated key keeps its first position and
// its last value, as JSON.parse would.
func FromEntries(path string, entries []Entry, skipped int) *Store {
	s := &Store{
		Path:    path,
		Dir:     filepath.Dir(path),
		Entries: entries[:0],
		Skipped: skipped,
		index:   make(map[string]int, len(entries)),
	}
	for _, e := range entries {
		if j, dup := s.index[e.Key]; dup {
			s.Entries[j] = e
			continue
		}
		s.index[e.Key] = len(s.Entries)
		s.Entries = append(s.Entries, e)
	}
	return s
}

// Restore returns a Store over entries kept from an earlier load of path
// (internal/storecache's disk tier): as that load gave them, in order, each
// key once. Entries are kept as given, not copied; the index of keys is
// built on the first Lookup.
func Restore(path string, entries []Entry, skipped int, missing, json5 bool) *Store {
	s := &Store{
		Path:      path,
		Dir:       filepath.Dir(path),
		Missing:   missing,
		JSON5:     json5,
		Entries:   entries,
		Skipped:   skipped,
		indexOnce: new(sync.Once),
	}
	return s
}

// buildIndex indexes the keys of a restored store (first position).
func (s *Store) buildIndex() {
	s.index = make(map[string]int, len(s.Entries))
	for i := range s.Entries {
		if _, dup := s.index[s.Entries[i].Key]; !dup {
			s.index[s.Entries[i].Key] = i
		}
	}
}
