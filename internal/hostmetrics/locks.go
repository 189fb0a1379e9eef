package hostmetrics

import (
	"time"

	"github.com/openclaw/sessions/internal/hostread"
	"github.com/openclaw/sessions/internal/state"
)

// heldLocks are the locks Locks lists (every agent the requester may see,
// our runners), found as state.HeldLocks finds them but from the scrape's
// listings of the directories, not a glob of each, and matched to
// sessions by the names the reading kept (names: the agents in scope; the
// others' locks are not counted): state.HeldLocksListed.
func heldLocks(s *state.State, names map[string]map[string]string, sc *scrapeFiles, now time.Time) []hostread.Lock {
	found := s.HeldLocksListed(names, func(dir string) []string { return sc.listing(dir).locks })
	out := hostread.LockRows(found, now)
	return append(out, hostread.RunnerLocks(s, now)...)
}
