package ops

import (
	"time"

	"github.com/openclaw/sessions/internal/state"
)

// heldLocks are the locks Locks lists (every agent the requester may see,
// our runners), found as state.HeldLocks finds them but from the scrape's
// listings of the directories, not a glob of each, and matched to
// sessions by the names the reading kept (names: the agents in scope; the
// others' locks are not counted): state.HeldLocksListed.
func (m *Metrics) heldLocks(s *state.State, names map[string]map[string]string, sc *scrapeFiles, now time.Time) []Lock {
	found := s.HeldLocksListed(names, func(dir string) []string { return sc.listing(dir).locks })
	out := make([]Lock, 0, len(found))
	for _, f := range found { // as openclawLocks makes them
		h := f.Holder
		l := Lock{Kind: LockTranscript, Path: h.Path, AgentID: f.Agent, SessionKey: f.SessionKey, PID: h.PID, Alive: h.Alive, Stale: h.Stale, Type: h.Kind}
		if f.Store {
			l.Kind = LockStore
		}
		if !h.Since.IsZero() {
			l.Since = h.Since.UnixMilli()
			l.AgeSeconds = max(0, int64(now.Sub(h.Since).Seconds()))
		}
		out = append(out, l)
	}
	return append(out, runnerLocks(s, now)...)
}
