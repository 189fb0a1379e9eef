package ops

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
)

// heldLocks are the locks Locks lists (every agent the requester may see,
// our runners), found as state.HeldLocks and lock.Find find them — the
// store's lock inspected, each directory's *.jsonl.lock files (in the
// first agent's name that has the directory) — but from the scrape's
// listings of the directories, not a glob of each, and matched to
// sessions by the names the reading kept (names: the agents in scope; the
// others' locks are not counted).
func (m *Metrics) heldLocks(s *state.State, names map[string]map[string]string, sc *scrapeFiles, now time.Time) []Lock {
	var found []lock.Found
	seenStore := map[string]bool{}
	seenDir := map[string]bool{}
	for _, agent := range s.AgentIDs() {
		if s.CanSeeAgent(agent, policy.OpHistory) != "" {
			continue
		}
		storePath, _ := s.StorePath(agent)
		if !seenStore[storePath] {
			seenStore[storePath] = true
			if h, err := lock.InspectStore(storePath); err == nil && h != nil {
				found = append(found, lock.Found{Store: true, Agent: agent, Holder: h})
			}
		}
		for _, dir := range []string{filepath.Dir(storePath), s.SessionsDir(agent)} {
			if seenDir[dir] {
				continue
			}
			seenDir[dir] = true
			var matches []string
			if strings.ContainsAny(dir, `*?[\`) {
				// the glob would take the directory for a pattern too
				matches, _ = filepath.Glob(filepath.Join(dir, "*.jsonl.lock"))
			} else {
				for _, n := range sc.listing(dir).locks {
					matches = append(matches, filepath.Join(dir, n))
				}
			}
			for _, mt := range matches {
				h, err := lock.InspectTranscript(strings.TrimSuffix(mt, ".lock"))
				if err != nil || h == nil {
					continue
				}
				found = append(found, lock.Found{Agent: agent, SessionKey: names[agent][strings.TrimSuffix(filepath.Base(mt), ".lock")], Holder: h})
			}
		}
	}
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
