package backend

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
	"github.com/tidwall/gjson"
)

// ShowResult is the document of one session (`sessions show --json`),
// built by the host that has it (Host.Show); ops hands it out as
// ops.ShowResult, masked for an agent.
type ShowResult struct {
	// Context names the gateway over a fleet (show --context all).
	Context     string         `json:"context,omitempty"`
	Key         string         `json:"key"`
	StoreKey    string         `json:"storeKey"`
	AgentID     string         `json:"agentId"`
	Kind        string         `json:"kind"`
	Channel     string         `json:"channel,omitempty"`
	SessionID   string         `json:"sessionId,omitempty"`
	Label       string         `json:"label,omitempty"`
	DisplayName string         `json:"displayName,omitempty"`
	UpdatedAt   *float64       `json:"updatedAt,omitempty"`
	Era         string         `json:"era"`   // json | sqlite (this host's store) | gateway (hostedByGateway)
	Store       string         `json:"store"` // sessions.json, openclaw-agent.sqlite, or the gateway's URL
	Model       *ShowModel     `json:"model,omitempty"`
	Tokens      *ShowTokens    `json:"tokens,omitempty"`
	Transcript  ShowTranscript `json:"transcript"`
	// Orphan: the transcript no entry points to (named by its sessionId):
	// key, storeKey, kind and store are empty, entry is null; BelongedTo is
	// the key it was a transcript of when that is known.
	Orphan     bool   `json:"orphan,omitempty"`
	BelongedTo string `json:"belongedTo,omitempty"`
	// EarlierTranscripts are the session's transcripts before its current
	// one that can be attributed to it, newest first (none: omitted).
	EarlierTranscripts []ShowEarlier   `json:"earlierTranscripts,omitempty"`
	Lineage            ShowLineage     `json:"lineage"`
	Busy               bool            `json:"busy"`
	Lock               *ShowLock       `json:"lock"`
	Runs               []ShowRun       `json:"runs"`
	Entry              json.RawMessage `json:"entry"`
}

// ShowModel is the model the session ran with, and its override.
type ShowModel struct {
	Provider         string `json:"provider,omitempty"`
	Model            string `json:"model,omitempty"`
	ProviderOverride string `json:"providerOverride,omitempty"`
	ModelOverride    string `json:"modelOverride,omitempty"`
}

// ShowTokens are the entry's token counts.
type ShowTokens struct {
	Input   *float64 `json:"input,omitempty"`
	Output  *float64 `json:"output,omitempty"`
	Total   *float64 `json:"total,omitempty"`
	Context *float64 `json:"context,omitempty"`
}

// ShowTranscript describes the session's transcript.
type ShowTranscript struct {
	Path           string `json:"path,omitempty"` // none in the SQLite era
	Exists         bool   `json:"exists"`
	Bytes          *int64 `json:"bytes,omitempty"`
	Messages       int    `json:"messages"`
	FirstMessageAt int64  `json:"firstMessageAt,omitempty"`
	LastMessageAt  int64  `json:"lastMessageAt,omitempty"`
	// Partial: over a gateway, only the last HistoryWindow messages are
	// reachable; messages and firstMessageAt count those (a warning says so).
	Partial bool `json:"partial,omitempty"`
	// InStore: the messages are kept in the agent's database (OpenClaw
	// 2026.8+), not in a file; no OpenClaw lock file guards them.
	InStore bool `json:"-"`
}

// ShowEarlier is one of a session's earlier transcripts: an orphan
// transcript attributed to it (source "orphan", 2026.1.30), or an archive
// a 2026.9 store keeps under its key (source "archived").
type ShowEarlier struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path,omitempty"`    // a file
	Archive   string `json:"archive,omitempty"` // the store archive's name
	Messages  int    `json:"messages"`
	Source    string `json:"source"`
}

// ShowLineage is who spawned the session and whom it spawned.
type ShowLineage struct {
	SpawnedBy string   `json:"spawnedBy,omitempty"`
	Children  []string `json:"children"`
}

// ShowLock is the holder of the session's transcript lock (as `sessions
// locks` shows it).
type ShowLock struct {
	Path       string `json:"path"`
	PID        int    `json:"pid,omitempty"`
	Since      int64  `json:"since,omitempty"`
	AgeSeconds int64  `json:"ageSeconds"`
	Alive      bool   `json:"alive"`
	Stale      bool   `json:"stale"`
}

// Show is everything this host's state dir says about the session ref (or
// label) names, with the requester's checks (Session): its entry as
// stored, kind, channel, model, tokens, the transcript — its file and the
// lock a run holds on it in the JSON era, its messages counted either way
// — lineage, runs and earlier transcripts; for an orphan transcript (a
// sessionId no entry has) its file and the key it belonged to.
func (l *Local) Show(ctx context.Context, ref, label string) (*ShowResult, error) {
	sess, err := l.Session(ctx, ref, label)
	if err != nil {
		return nil, err
	}
	page, err := l.History(ctx, sess, HistoryQuery{All: true, IncludeTools: true})
	if err != nil {
		return nil, err
	}
	s, err := l.State()
	if err != nil {
		return nil, err
	}
	var res *ShowResult
	if orphan := sess.Orphan(); orphan != nil {
		res, err = l.showOrphan(s, orphan)
	} else {
		res, err = l.showLocal(s, sess.Target(), sess.TranscriptFile())
	}
	if err != nil {
		return nil, err
	}
	res = showCounted(res, page)
	res.Transcript.InStore = res.Era == era.SQLite.String()
	return res, nil
}

// Show is what the gateway says about the session ref (or label) names,
// with the requester's checks (Session): its sessions.list row and the
// messages of the window chat.history returns, counted.
func (g *Gateway) Show(ctx context.Context, ref, label string) (*ShowResult, error) {
	sess, err := g.Session(ctx, ref, label)
	if err != nil {
		return nil, err
	}
	page, err := g.History(ctx, sess, HistoryQuery{All: true, IncludeTools: true})
	if err != nil {
		return nil, err
	}
	return showCounted(g.showRemote(sess, page), page), nil
}

// showFacts are what a reader knows about a session beside its messages,
// in the shape both readers give them.
type showFacts struct {
	key, storeKey, sessionID string
	row                      state.Row // kind, channel, agent, label, displayName, updatedAt, spawnedBy, tokens
	model                    ShowModel
	input, output            *float64
	era                      string // the document's era: a store's, or hostedByGateway
	store                    string
	children                 []string
	entry                    json.RawMessage
}

// newShowResult is the document of what every reader knows.
func newShowResult(f showFacts) *ShowResult {
	r := f.row
	res := &ShowResult{
		Key: f.key, StoreKey: f.storeKey, AgentID: r.AgentID, Kind: r.Kind, Channel: r.Channel,
		SessionID: f.sessionID, Label: r.Label, DisplayName: r.DisplayName, UpdatedAt: r.UpdatedAt,
		Era: f.era, Store: f.store, Runs: []ShowRun{},
		Lineage: ShowLineage{SpawnedBy: r.SpawnedBy, Children: f.children},
		Entry:   f.entry,
	}
	if res.Channel == "unknown" {
		res.Channel = ""
	}
	if f.model != (ShowModel{}) {
		m := f.model
		res.Model = &m
	}
	if f.input != nil || f.output != nil || r.TotalTokens != nil || r.ContextTokens != nil {
		res.Tokens = &ShowTokens{Input: f.input, Output: f.output, Total: r.TotalTokens, Context: r.ContextTokens}
	}
	return res
}

// showCounted completes res with what the messages read say: their count,
// first and last times, and (no file in the SQLite era or over a gateway)
// whether there is a transcript at all.
func showCounted(res *ShowResult, page *HistoryPage) *ShowResult {
	res.Transcript.Messages = len(page.Messages)
	res.Transcript.FirstMessageAt, res.Transcript.LastMessageAt = showMessageTimes(page.Messages)
	if res.Era == era.SQLite.String() || res.Era == hostedByGateway {
		res.Transcript.Exists = len(page.Messages) > 0
	}
	return res
}

// showLocal is what the local state knows about t beside its messages
// (read through the seam): the entry as stored, the store, the transcript
// file (tp, "" in the SQLite era) and its lock, lineage and runs.
func (l *Local) showLocal(s *state.State, t *state.Target, tp string) (*ShowResult, error) {
	m := &t.Entry.Meta
	e := era.JSON
	if state.IsSQLite(t.Store) {
		e = era.SQLite
	}
	raw, err := showEntryRaw(s, t)
	if err != nil {
		return nil, err
	}
	res := newShowResult(showFacts{
		key: t.DisplayKey, storeKey: t.Key, sessionID: m.SessionID, row: s.Row(t.Agent, t.Store, t.Entry),
		model: ShowModel{Provider: m.ModelProvider, Model: m.Model, ProviderOverride: m.ProviderOverride, ModelOverride: m.ModelOverride},
		input: m.InputTokens, output: m.OutputTokens, era: e.String(), store: t.Store.Path, entry: raw,
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
func showTranscriptFile(res *ShowResult, tp string, now time.Time) error {
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
		l := &ShowLock{Path: h.Path, PID: h.PID, Alive: h.Alive, Stale: h.Stale}
		if !h.Since.IsZero() {
			l.Since = h.Since.UnixMilli()
			l.AgeSeconds = max(0, int64(now.Sub(h.Since).Seconds()))
		}
		res.Lock = l
		res.Busy = h.Alive && !h.Stale
	}
	return nil
}

// showRemote is what a gateway knows about the session beside its
// messages: its sessions.list row (as "entry"). What the gateway does not
// give is absent: transcript path and bytes, the lock, our run records;
// lineage children only from 2026.9 rows; busy from 2026.9's hasActiveRun.
// The window chat.history reaches may not be the whole transcript
// (transcript.partial, and a warning).
func (g *Gateway) showRemote(sess *Session, page *HistoryPage) *ShowResult {
	var row struct {
		ModelProvider string   `json:"modelProvider"`
		InputTokens   *float64 `json:"inputTokens"`
		OutputTokens  *float64 `json:"outputTokens"`
		HasActiveRun  bool     `json:"hasActiveRun"`
	}
	_ = json.Unmarshal(sess.Raw, &row)
	r := sess.Row
	res := newShowResult(showFacts{
		key: r.Key, storeKey: r.Key, sessionID: sess.SessionID, row: r,
		model: ShowModel{Provider: row.ModelProvider, Model: r.Model},
		input: row.InputTokens, output: row.OutputTokens, era: hostedByGateway, store: g.Where(),
		children: sess.Children, entry: sess.Raw,
	})
	res.Busy = row.HasActiveRun
	if page.WindowFull {
		res.Transcript.Partial = true
		g.warn(fmt.Sprintf("show: the gateway returns the last %d messages of %s; transcript.messages and firstMessageAt count those only", HistoryWindow, sess.Key))
	}
	return res
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

// showMessageTimes returns the times (ms) of the first and the last message
// that carry one: the message's timestamp (ms, or an ISO string).
func showMessageTimes(msgs []json.RawMessage) (first, last int64) {
	for _, m := range msgs {
		if ms := showMessageTime(m); ms > 0 {
			first = ms
			break
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if ms := showMessageTime(msgs[i]); ms > 0 {
			last = ms
			break
		}
	}
	return first, last
}

func showMessageTime(m json.RawMessage) int64 {
	v := gjson.GetBytes(m, "timestamp")
	switch v.Type {
	case gjson.Number:
		return int64(v.Num)
	case gjson.String:
		if t, err := time.Parse(time.RFC3339Nano, v.Str); err == nil {
			return t.UnixMilli()
		}
	}
	return 0
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
