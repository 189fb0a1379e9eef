package local

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
)

// Show is everything this host's state dir says about the session ref (or
// label) names, with the requester's checks (Session): its entry as
// stored, kind, channel, model, tokens, the transcript — its file and the
// lock a run holds on it in the JSON era, its messages counted either way
// — lineage, runs and earlier transcripts; for an orphan transcript (a
// sessionId no entry has) its file and the key it belonged to.
func (l *Local) Show(ctx context.Context, ref, label string) (*backend.ShowResult, error) {
	sess, err := l.Session(ctx, ref, label)
	if err != nil {
		return nil, err
	}
	page, err := l.History(ctx, sess, backend.HistoryQuery{All: true, IncludeTools: true})
	if err != nil {
		return nil, err
	}
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	var res *backend.ShowResult
	if orphan := sess.Orphan(); orphan != nil {
		res, err = l.showOrphan(s, orphan)
	} else {
		ls := handle(sess)
		res, err = l.showLocal(s, ls.t, ls.tp)
	}
	if err != nil {
		return nil, err
	}
	res = backend.ShowCounted(res, page)
	res.Transcript.InStore = res.Era == era.SQLite.String()
	return res, nil
}

// showLocal is what the local state knows about t beside its messages
// (read through the seam): the entry as stored, the store, the transcript
// file (tp, "" in the SQLite era) and its lock, lineage and runs.
func (l *Local) showLocal(s *state.State, t *state.Target, tp string) (*backend.ShowResult, error) {
	m := &t.Entry.Meta
	e := era.JSON
	if state.IsSQLite(t.Store) {
		e = era.SQLite
	}
	raw, err := showEntryRaw(s, t)
	if err != nil {
		return nil, err
	}
	res := backend.NewShowResult(backend.ShowFacts{
		Key: t.DisplayKey, StoreKey: t.Key, SessionID: m.SessionID, Row: s.Row(t.Agent, t.Store, t.Entry),
		Model: backend.ShowModel{Provider: m.ModelProvider, Model: m.Model, ProviderOverride: m.ProviderOverride, ModelOverride: m.ModelOverride},
		Input: m.InputTokens, Output: m.OutputTokens, Era: e.String(), Store: t.Store.Path, Entry: raw,
	})
	if e == era.JSON {
		if err := showTranscriptFile(res, tp, l.now()); err != nil {
			return nil, err
		}
	}
	res.Lineage.Children = showChildren(s, t)
	res.Runs = showRuns(s, t)
	res.EarlierTranscripts = l.showEarlier(s, t)
	return res, nil
}

// showTranscriptFile adds the transcript file (the messages were read through
// the seam) and its lock.
func showTranscriptFile(res *backend.ShowResult, tp string, now time.Time) error {
	res.Transcript.Path = tp
	if fi, err := os.Stat(tp); err == nil {
		res.Transcript.Exists = true
		size := fi.Size()
		res.Transcript.Bytes = &size
	} else if !errors.Is(err, fs.ErrNotExist) {
		return apperr.Statef("cannot read transcript %s: %v", tp, err)
	}
	if tp == "" {
		return nil
	}
	if h, err := state.TranscriptLock(tp); err == nil && h != nil {
		l := &backend.ShowLock{Path: h.Path, PID: h.PID, Alive: h.Alive, Stale: h.Stale}
		if !h.Since.IsZero() {
			l.Since = h.Since.UnixMilli()
			l.AgeSeconds = max(0, int64(now.Sub(h.Since).Seconds()))
		}
		res.Lock = l
		res.Busy = h.Alive && !h.Stale
	}
	return nil
}

// showEntryRaw is the entry exactly as stored. The state's stores keep keys and
// fields only: the one row is read again (state.EntryRaw).
func showEntryRaw(s *state.State, t *state.Target) (json.RawMessage, error) {
	raw, ok, err := s.EntryRaw(t.Agent, t.Entry)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apperr.NotFoundf("No session found: %s (removed while reading)", t.DisplayKey)
	}
	return raw, nil
}

// showChildren are the sessions (of every agent the requester may see) whose
// spawnedBy is this session, newest first.
func showChildren(s *state.State, t *state.Target) []string {
	type child struct {
		key string
		at  int64
	}
	var out []child
	for _, agent := range s.AgentIDs() {
		if s.CanSeeAgent(agent, policy.OpHistory) != "" {
			continue
		}
		_, entries, err := s.Entries(agent)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.SpawnedBy == "" || !s.Visible(e) {
				continue
			}
			if e.SpawnedBy == t.Key || keys.Canonical(e.SpawnedBy, s.Default, config.NormalizeAgentID) == t.Key {
				out = append(out, child{s.DisplayKey(e.Key), e.Updated()})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b child) int { return cmp.Or(cmp.Compare(b.at, a.at), cmp.Compare(a.key, b.key)) })
	ks := make([]string, len(out))
	for i, c := range out {
		ks[i] = c.key
	}
	return ks
}
