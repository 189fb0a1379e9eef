package state

import (
	"context"
	"path/filepath"
	"time"

	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/store"
)

// HeldLock is one of OpenClaw's locks held now: a store's or a
// transcript's, with its holder.
type HeldLock = lock.Found

// HeldLocks are OpenClaw's store and transcript locks held now in the
// stores' directories of every agent the requester may see, each with the
// session its transcript belongs to when known; none is touched.
func (s *State) HeldLocks() []lock.Found {
	names := map[string]map[string]string{}
	for _, agent := range s.AgentIDs() {
		if s.CanSeeAgent(agent, policy.OpHistory) != "" {
			continue
		}
		var n map[string]string
		if _, entries, err := s.Entries(agent); err == nil {
			n = s.TranscriptNames(entries)
		} else {
			n = map[string]string{}
		}
		names[agent] = n
	}
	return s.HeldLocksListed(names, nil)
}

// TranscriptNames are the sessions the requester may see that entries'
// transcript files belong to: display key by file name (<sessionId>.jsonl
// and the sessionFile's), what a transcript lock is matched to.
func (s *State) TranscriptNames(entries []*store.Entry) map[string]string {
	names := map[string]string{}
	for _, e := range entries {
		if !s.Visible(e) {
			continue
		}
		key := s.DisplayKey(e.Key)
		if e.SessionID != "" {
			names[e.SessionID+".jsonl"] = key
		}
		if e.SessionFile != "" {
			names[filepath.Base(e.SessionFile)] = key
		}
	}
	return names
}

// HeldLocksListed is HeldLocks with the sessions a transcript lock is
// matched to given per agent (names[agent]: session key by transcript file
// name; an agent without names still has its locks found, unmatched) and
// each directory's lock files as the caller listed them (listed).
func (s *State) HeldLocksListed(names map[string]map[string]string, listed func(dir string) []string) []lock.Found {
	var sites []lock.Site
	for _, agent := range s.AgentIDs() {
		if s.CanSeeAgent(agent, policy.OpHistory) != "" {
			continue
		}
		storePath, _ := s.StorePath(agent)
		sites = append(sites, lock.Site{Agent: agent, Store: storePath, Dirs: []string{filepath.Dir(storePath), s.SessionsDir(agent)},
			Names: names[agent], Listed: listed})
	}
	return lock.Find(sites)
}

// TranscriptLock is who holds the OpenClaw write lock of the transcript at
// path now (nil: nobody); nothing is touched.
func TranscriptLock(path string) (*lock.HolderInfo, error) { return lock.InspectTranscript(path) }

// TranscriptBusy is the live holder of the transcript's lock: an OpenClaw
// turn running on it now (nil: none).
func TranscriptBusy(path string) (*lock.HolderInfo, error) { return lock.TranscriptBusy(path) }

// WaitTranscriptIdle waits until no live process holds the transcript's
// lock, polling every poll, or ctx ends (the last holder seen).
func WaitTranscriptIdle(ctx context.Context, path string, poll time.Duration) (*lock.HolderInfo, error) {
	return lock.WaitTranscriptIdle(ctx, path, poll)
}
