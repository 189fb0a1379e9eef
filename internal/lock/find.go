package lock

import (
	"path/filepath"
	"strings"
)

// Site is where one agent's OpenClaw locks may be: its store (whose
// <store>.lock is the store lock) and the directories its transcripts are
// in (each <transcript>.jsonl.lock a session write lock). Names gives the
// session key of a transcript by its file name (for the rows).
type Site struct {
	Agent string
	Store string
	Dirs  []string
	Names map[string]string
	// Listed gives the *.jsonl.lock names of a directory as the caller
	// has just listed it (a scrape that lists each directory once); nil:
	// each directory is globbed.
	Listed func(dir string) []string
}

// Found is one lock held now: a store's or a transcript's.
type Found struct {
	Store      bool // the store lock (else a transcript's)
	Agent      string
	SessionKey string
	Holder     *HolderInfo
}

// Find lists the OpenClaw locks held now at sites, touching none of them
// (a store or directory shared by several agents is looked at once, for
// the first).
func Find(sites []Site) []Found {
	var out []Found
	seenStore := map[string]bool{}
	seenDir := map[string]bool{}
	for _, s := range sites {
		if !seenStore[s.Store] {
			seenStore[s.Store] = true
			if h, err := InspectStore(s.Store); err == nil && h != nil {
				out = append(out, Found{Store: true, Agent: s.Agent, Holder: h})
			}
		}
		for _, dir := range s.Dirs {
			if seenDir[dir] {
				continue
			}
			seenDir[dir] = true
			var matches []string
			if s.Listed != nil && !strings.ContainsAny(dir, `*?[\`) {
				for _, n := range s.Listed(dir) {
					matches = append(matches, filepath.Join(dir, n))
				}
			} else {
				// (a directory with a glob character is globbed as the
				// pattern it makes)
				matches, _ = filepath.Glob(filepath.Join(dir, "*.jsonl.lock"))
			}
			for _, m := range matches {
				h, err := InspectTranscript(strings.TrimSuffix(m, ".lock"))
				if err != nil || h == nil {
					continue
				}
				out = append(out, Found{Agent: s.Agent, SessionKey: s.Names[strings.TrimSuffix(filepath.Base(m), ".lock")], Holder: h})
			}
		}
	}
	return out
}
