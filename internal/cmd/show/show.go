// Package show implements `sessions show`: one session, all of it — every
// field of its store entry as stored, and what is derived from the rest of
// the state: kind, channel, transcript, messages, tokens, model, lineage,
// whether an OpenClaw run is busy on it right now, and its runs.
package show

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"github.com/openclaw/sessions/internal/era"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"
)

// Options are the parsed flags of `sessions show`.
type Options struct {
	f     *cmdutil.Factory
	Ref   string
	Label string
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "show {KEY | SESSION_ID | PREFIX | --label L [--agent A]} [flags]",
		Short: "Everything about one session: its entry, transcript, lineage, lock and runs",
		Long: `Show one session: every field of its store entry exactly as stored (unknown
fields included), and what is derived from the rest of the state — its kind,
channel and agent; its transcript (path, size, message count, first and last
message time; OpenClaw 2026.8+ keeps it in the SQLite store, without a file);
model and tokens; lineage (the session that spawned it, the sessions it
spawned); whether an OpenClaw run holds its transcript lock right now (pid,
age); and its runs: sessions' own send/spawn runs that target it or that it
requested, and OpenClaw's sub-agent runs (subagents/runs.json) it is the
child or the requester of.

The session is named by its key, its sessionId, a unique sessionId prefix
(8+ hex digits) or --label L [--agent A]. Nothing is written.

JSON (--json): {"key","storeKey","agentId","kind","channel","sessionId",
"label","displayName","updatedAt","era","store","model","tokens",
"transcript":{"path","exists","bytes","messages","firstMessageAt",
"lastMessageAt"},"lineage":{"spawnedBy","children"},"busy","lock",
"runs":[…],"entry"} (times in ms since the epoch).
Piped: one "field<TAB>value" line per value of that document, nested fields
as dotted paths (transcript.messages, entry.deliveryContext.channel,
lineage.children.0), times (…At fields) in RFC 3339.

Over several gateways (--context all, or --context repeated) every host is
asked at once: {"sessions":[…one document per host that has the session,
each with "context"],"count","errors":[{"context","error"}]}; a host that
fails is in "errors" and on stderr (exit 1), none having it is exit 4.`,
		Example: `  sessions show main
  sessions show 26a610b5
  sessions show --label build-stats --json
  sessions show main --jq '.transcript.messages'
  sessions show main | awk -F'\t' '$1 == "transcript.path" { print $2 }'`,
		Args:              cmdutil.RefArgs(&o.Label, "label"),
		ValidArgsFunction: cmdutil.CompleteSessionArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.Ref = args[0]
			}
			if runF != nil {
				return runF(o)
			}
			return run(o)
		},
	}
	cmdutil.AddRefLabelFlag(cmd, f, &o.Label, "label")
	return cmd
}

// Result is the JSON document of `sessions show`.
type Result struct {
	// Context names the gateway over a fleet (show --context all).
	Context     string          `json:"context,omitempty"`
	Key         string          `json:"key"`
	StoreKey    string          `json:"storeKey"`
	AgentID     string          `json:"agentId"`
	Kind        string          `json:"kind"`
	Channel     string          `json:"channel,omitempty"`
	SessionID   string          `json:"sessionId,omitempty"`
	Label       string          `json:"label,omitempty"`
	DisplayName string          `json:"displayName,omitempty"`
	UpdatedAt   *float64        `json:"updatedAt,omitempty"`
	Era         era.Era         `json:"era"`   // json | sqlite | gateway
	Store       string          `json:"store"` // sessions.json, openclaw-agent.sqlite, or the gateway's URL
	Model       *Model          `json:"model,omitempty"`
	Tokens      *Tokens         `json:"tokens,omitempty"`
	Transcript  Transcript      `json:"transcript"`
	Lineage     Lineage         `json:"lineage"`
	Busy        bool            `json:"busy"`
	Lock        *Lock           `json:"lock"`
	Runs        []Run           `json:"runs"`
	Entry       json.RawMessage `json:"entry"`
}

// Model is the model the session ran with, and its override.
type Model struct {
	Provider         string `json:"provider,omitempty"`
	Model            string `json:"model,omitempty"`
	ProviderOverride string `json:"providerOverride,omitempty"`
	ModelOverride    string `json:"modelOverride,omitempty"`
}

// Tokens are the entry's token counts.
type Tokens struct {
	Input   *float64 `json:"input,omitempty"`
	Output  *float64 `json:"output,omitempty"`
	Total   *float64 `json:"total,omitempty"`
	Context *float64 `json:"context,omitempty"`
}

// Transcript describes the session's transcript.
type Transcript struct {
	Path           string `json:"path,omitempty"` // none in the SQLite era
	Exists         bool   `json:"exists"`
	Bytes          *int64 `json:"bytes,omitempty"`
	Messages       int    `json:"messages"`
	FirstMessageAt int64  `json:"firstMessageAt,omitempty"`
	LastMessageAt  int64  `json:"lastMessageAt,omitempty"`
	// Partial: over a gateway, only the last backend.HistoryWindow messages
	// are reachable; messages and firstMessageAt count those (stderr says so).
	Partial bool `json:"partial,omitempty"`
}

// Lineage is who spawned the session and whom it spawned.
type Lineage struct {
	SpawnedBy string   `json:"spawnedBy,omitempty"`
	Children  []string `json:"children"`
}

// Lock is the holder of the session's transcript lock (as `sessions locks`
// shows it).
type Lock struct {
	Path       string `json:"path"`
	PID        int    `json:"pid,omitempty"`
	Since      int64  `json:"since,omitempty"`
	AgeSeconds int64  `json:"ageSeconds"`
	Alive      bool   `json:"alive"`
	Stale      bool   `json:"stale"`
}

// run finds the session and reads its transcript through the reader the
// invocation selects (the local state dir, or one gateway), then adds what
// that reader knows about the session: locally the entry as stored, the
// file, its lock and our run records; over a gateway its row.
func run(o *Options) error {
	f := o.f
	readers, fleet, err := f.Readers()
	if err != nil {
		return err
	}
	defer cmdutil.CloseReaders(readers)
	if fleet {
		return runFleet(o, readers)
	}
	tr := readers[0].(backend.Transcripts)
	ctx := context.Background()
	sess, err := tr.Session(ctx, o.Ref, o.Label)
	if err != nil {
		return err
	}
	page, err := tr.History(ctx, sess, backend.HistoryQuery{All: true, IncludeTools: true})
	if err != nil {
		return err
	}
	var res *Result
	if t := sess.Target(); t != nil {
		s, err := f.State()
		if err != nil {
			return err
		}
		res, err = build(s, t, sess.TranscriptFile(), f.Now())
		if err != nil {
			return err
		}
	} else {
		res = buildRemote(o, sess, page, readers[0].Where())
	}
	return o.print(counted(res, page))
}

// counted completes res with what the messages read say: their count,
// first and last times, and (no file in the SQLite era or over a gateway)
// whether there is a transcript at all.
func counted(res *Result, page *backend.HistoryPage) *Result {
	res.Transcript.Messages = len(page.Messages)
	res.Transcript.FirstMessageAt, res.Transcript.LastMessageAt = messageTimes(page.Messages)
	if res.Era == era.SQLite || res.Era == era.Gateway {
		res.Transcript.Exists = len(page.Messages) > 0
	}
	return res
}

func (o *Options) print(res *Result) error {
	f := o.f
	now := f.Now()
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	if f.IO.IsStdoutTTY() {
		return printTTY(f, res, now)
	}
	return printTSV(f.IO.Out, res)
}

// build gathers what the local state knows about t beside its messages
// (read through the seam): the entry as stored, the store, the transcript
// file (tp, "" in the SQLite era) and its lock, lineage and runs.
func build(s *state.State, t *state.Target, tp string, now time.Time) (*Result, error) {
	row := s.Row(t.Agent, t.Store, t.Entry)
	m := &t.Entry.Meta
	res := &Result{
		Key: t.DisplayKey, StoreKey: t.Key, AgentID: t.Agent, Kind: row.Kind, Channel: row.Channel,
		SessionID: m.SessionID, Label: m.Label, DisplayName: m.DisplayName, UpdatedAt: m.UpdatedAt,
		Era: "json", Store: t.Store.Path, Runs: []Run{},
		Lineage: Lineage{SpawnedBy: m.SpawnedBy, Children: []string{}},
	}
	if res.Channel == "unknown" {
		res.Channel = ""
	}
	sqlite := state.IsSQLite(t.Store)
	if sqlite {
		res.Era = "sqlite"
	}
	if m.Model != "" || m.ModelProvider != "" || m.ModelOverride != "" || m.ProviderOverride != "" {
		res.Model = &Model{Provider: m.ModelProvider, Model: m.Model, ProviderOverride: m.ProviderOverride, ModelOverride: m.ModelOverride}
	}
	if m.InputTokens != nil || m.OutputTokens != nil || m.TotalTokens != nil || m.ContextTokens != nil {
		res.Tokens = &Tokens{Input: m.InputTokens, Output: m.OutputTokens, Total: m.TotalTokens, Context: m.ContextTokens}
	}
	raw, err := entryRaw(s, t)
	if err != nil {
		return nil, err
	}
	res.Entry = raw

	// The transcript file (the messages were read through the seam), and
	// its lock.
	if !sqlite {
		res.Transcript.Path = tp
		if fi, err := os.Stat(tp); err == nil {
			res.Transcript.Exists = true
			size := fi.Size()
			res.Transcript.Bytes = &size
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, apperr.Statef("cannot read transcript %s: %v", tp, err)
		}
		if tp != "" {
			if h, err := lock.InspectTranscript(tp); err == nil && h != nil {
				l := &Lock{Path: h.Path, PID: h.PID, Alive: h.Alive, Stale: h.Stale}
				if !h.Since.IsZero() {
					l.Since = h.Since.UnixMilli()
					l.AgeSeconds = max(0, int64(now.Sub(h.Since).Seconds()))
				}
				res.Lock = l
				res.Busy = h.Alive && !h.Stale
			}
		}
	}
	res.Lineage.Children = children(s, t)
	res.Runs = collectRuns(s, t)
	return res, nil
}

// entryRaw is the entry exactly as stored. The state's stores keep keys and
// fields only: the one row is read again (state.EntryRaw).
func entryRaw(s *state.State, t *state.Target) (json.RawMessage, error) {
	raw, ok, err := s.EntryRaw(t.Agent, t.Entry)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apperr.NotFoundf("No session found: %s (removed while reading)", t.DisplayKey)
	}
	return raw, nil
}

// messageTimes returns the times (ms) of the first and the last message
// that carry one: the message's timestamp (ms, or an ISO string).
func messageTimes(msgs []json.RawMessage) (first, last int64) {
	for _, m := range msgs {
		if ms := messageTime(m); ms > 0 {
			first = ms
			break
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if ms := messageTime(msgs[i]); ms > 0 {
			last = ms
			break
		}
	}
	return first, last
}

func messageTime(m json.RawMessage) int64 {
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

// children are the sessions (of every agent the requester may see) whose
// spawnedBy is this session, newest first.
func children(s *state.State, t *state.Target) []string {
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
