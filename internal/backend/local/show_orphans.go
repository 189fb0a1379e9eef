package local

import (
	"fmt"
	"slices"

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

// showEarlier are t's earlier transcripts that can be attributed to it
// (earlierOf), newest first, each with its count of messages.
func (l *Local) showEarlier(s *state.State, t *state.Target) []backend.ShowEarlier {
	earlier, err := l.earlierOf(s, t)
	if err != nil {
		return nil
	}
	var out []backend.ShowEarlier
	for _, e := range slices.Backward(earlier) {
		a := e.agent
		switch src := e.source(); {
		case e.arc != nil:
			_, msgs, err := srch.Messages(src, true, 0)
			if err != nil {
				l.Warn(fmt.Sprintf("transcript archive %s of agent %s: %v", e.arc.Name, a.ID, err))
			}
			out = append(out, backend.ShowEarlier{SessionID: e.sid(), Archive: e.arc.Name, Messages: len(msgs), Source: backend.EarlierArchived})
		case e.copy:
			_, msgs, err := srch.Messages(src, true, 0)
			if err != nil {
				l.Warn(fmt.Sprintf("archived transcript %s of agent %s: %v", e.orphan.File.Name, a.ID, err))
			}
			out = append(out, backend.ShowEarlier{SessionID: e.sid(), Path: e.orphan.Path(), Messages: len(msgs), Source: backend.EarlierArchived})
		default:
			n, err := a.CountMessages(&e.orphan)
			if err != nil {
				l.Warn(fmt.Sprintf("orphan transcript %s of agent %s: %v", e.sid(), a.ID, err))
			}
			out = append(out, backend.ShowEarlier{SessionID: e.sid(), Path: e.orphan.Path(), Messages: n, Source: backend.EarlierOrphan})
		}
	}
	return out
}
