package runs

import "strings"

// Filter is what a listing of runs keeps.
type Filter struct {
	Status    string // only runs with this status ("": any)
	Session   string // only runs involving this session key, display key or sessionId
	SpawnOnly bool   // only spawn runs (the spawn lineage)
	Limit     int    // at most this many shown; < 0: all
}

// Select keeps the records of recs (newest first) that f matches: the
// first f.Limit of them shown, and how many matched in all.
func Select(recs []*Record, f Filter) (shown []*Record, total int) {
	for _, r := range recs {
		if f.Status != "" && r.Status != f.Status {
			continue
		}
		if f.Session != "" && !Involves(r, f.Session) {
			continue
		}
		if f.SpawnOnly && r.Kind != KindSpawn {
			continue
		}
		total++
		if f.Limit < 0 || len(shown) < f.Limit {
			shown = append(shown, r)
		}
	}
	return shown, total
}

// Involves reports whether run r involves session s (key, display key or
// sessionId) as its target or requester.
func Involves(r *Record, s string) bool {
	for _, x := range []*Session{&r.Target, r.Requester} {
		if x != nil && (x.Key == s || x.DisplayKey == s || (x.SessionID != "" && strings.EqualFold(x.SessionID, s))) {
			return true
		}
	}
	return false
}
