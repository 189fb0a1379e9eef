package local

import (
	"fmt"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/era"
	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcripts"
)

// showOrphan is what the local state knows about an orphan transcript
// beside its messages: its file and lock, and the key it belonged to when
// that can be known (transcripts.Orphan); there is no entry, store row,
// lineage or run. A 2026.8+ orphan's store is the SQLite store holding its
// events.
func (l *Local) showOrphan(s *state.State, or *transcripts.OrphanAt) (*backend.ShowResult, error) {
	res := &backend.ShowResult{AgentID: or.Agent, SessionID: or.SessionID, Era: era.JSON.String(), Orphan: true,
		Lineage: backend.ShowLineage{Children: []string{}}, Runs: []backend.ShowRun{}}
	if or.Key != "" {
		res.BelongedTo = s.DisplayKey(or.Key)
	}
	if or.File == nil { // the events a 2026.8+ store keeps
		res.Era, res.Store = era.SQLite.String(), s.SQLitePath(or.Agent)
		return res, nil
	}
	if err := showTranscriptFile(res, or.Path(), l.now()); err != nil {
		return nil, err
	}
	return res, nil
}

// showEarlier are t's earlier transcripts that can be attributed to it:
// the agent's orphan transcripts whose key is t's (on 2026.1.30 a later
// transcript's header names them, on 2026.8+ the store's session window
// says so) and the archives a 2026.9 store keeps under t's key. Nothing for a sandboxed requester (it reads neither
// orphans nor archives, as search --include-archived).
func (l *Local) showEarlier(s *state.State, t *state.Target) []backend.ShowEarlier {
	if s.Req.Restrict {
		return nil
	}
	set, err := transcripts.Open(s, transcripts.Options{Agent: t.Agent, StoreArchives: state.IsSQLite(t.Store)})
	if err != nil {
		return nil
	}
	var out []backend.ShowEarlier
	for a := range set.All() {
		if a.Err != nil {
			continue
		}
		orphans := a.Orphans(s)
		a.Attribute(s, orphans)
		for _, or := range orphans {
			if or.Key != t.Key {
				continue
			}
			n, err := a.CountMessages(&or)
			if err != nil {
				l.Warn(fmt.Sprintf("orphan transcript %s of agent %s: %v", or.SessionID, a.ID, err))
			}
			out = append(out, backend.ShowEarlier{SessionID: or.SessionID, Path: or.Path(), Messages: n, Source: backend.EarlierOrphan})
		}
		for i := range a.Archives {
			arc := &a.Archives[i]
			if arc.SessionKey != t.Key {
				continue
			}
			_, msgs, err := srch.Messages(&srch.Source{SessionID: arc.SessionID, DB: a.DB, Archive: arc}, true, 0)
			if err != nil {
				l.Warn(fmt.Sprintf("transcript archive %s of agent %s: %v", arc.Name, a.ID, err))
			}
			out = append(out, backend.ShowEarlier{SessionID: arc.SessionID, Archive: arc.Name, Messages: len(msgs), Source: backend.EarlierArchived})
		}
	}
	return out
}
