package backend

import (
	"encoding/json"
	"time"

	"github.com/openclaw/sessions/internal/era"
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
	Era         string         `json:"era"`   // json | sqlite (this host's store) | gateway (HostedByGateway)
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

// ShowFacts are what a reader knows about a session beside its messages,
// in the shape both readers give them.
type ShowFacts struct {
	Key, StoreKey, SessionID string
	Row                      state.Row // kind, channel, agent, label, displayName, updatedAt, spawnedBy, tokens
	Model                    ShowModel
	Input, Output            *float64
	Era                      string // the document's era: a store's, or HostedByGateway
	Store                    string
	Children                 []string
	Entry                    json.RawMessage
}

// NewShowResult is the document of what every reader knows.
func NewShowResult(f ShowFacts) *ShowResult {
	r := f.Row
	res := &ShowResult{
		Key: f.Key, StoreKey: f.StoreKey, AgentID: r.AgentID, Kind: r.Kind, Channel: r.Channel,
		SessionID: f.SessionID, Label: r.Label, DisplayName: r.DisplayName, UpdatedAt: r.UpdatedAt,
		Era: f.Era, Store: f.Store, Runs: []ShowRun{},
		Lineage: ShowLineage{SpawnedBy: r.SpawnedBy, Children: f.Children},
		Entry:   f.Entry,
	}
	if res.Channel == "unknown" {
		res.Channel = ""
	}
	if f.Model != (ShowModel{}) {
		m := f.Model
		res.Model = &m
	}
	if f.Input != nil || f.Output != nil || r.TotalTokens != nil || r.ContextTokens != nil {
		res.Tokens = &ShowTokens{Input: f.Input, Output: f.Output, Total: r.TotalTokens, Context: r.ContextTokens}
	}
	return res
}

// ShowCounted completes res with what the messages read say: their count,
// first and last times, and (no file in the SQLite era or over a gateway)
// whether there is a transcript at all.
func ShowCounted(res *ShowResult, page *HistoryPage) *ShowResult {
	res.Transcript.Messages = len(page.Messages)
	res.Transcript.FirstMessageAt, res.Transcript.LastMessageAt = showMessageTimes(page.Messages)
	if res.Era == era.SQLite.String() || res.Era == HostedByGateway {
		res.Transcript.Exists = len(page.Messages) > 0
	}
	return res
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

// Sources of a run.
const (
	ShowRunSessions = "sessions" // our own run records (<state>/sessions-cli/runs)
	ShowRunOpenClaw = "openclaw" // OpenClaw's sub-agent registry (subagents/runs.json)
)

// Roles of the session in a run.
const (
	ShowRoleTarget    = "target"    // the run's target (send) or child (spawn, sub-agent)
	ShowRoleRequester = "requester" // the session that asked for the run
)

// ShowRun is one run the session takes part in.
type ShowRun struct {
	Source string `json:"source"`
	RunID  string `json:"runId"`
	Kind   string `json:"kind"` // send | spawn | subagent
	Role   string `json:"role"`
	Status string `json:"status,omitempty"`
	// Peer is the other session: the requester when Role is target, the
	// target when Role is requester.
	Peer      string `json:"peer,omitempty"`
	Label     string `json:"label,omitempty"`
	Task      string `json:"task,omitempty"` // the message of a send, the task of a spawn
	CreatedAt int64  `json:"createdAt,omitempty"`
	EndedAt   int64  `json:"endedAt,omitempty"`
	Summary   string `json:"summary,omitempty"`
	// RunnerAlive tells, for a run of ours not yet ended, whether its
	// runner still holds its lock (false: it died; `sessions runs` will
	// record it as failed).
	RunnerAlive *bool `json:"runnerAlive,omitempty"`
}

// Sources of an earlier transcript (ShowEarlier.Source).
const (
	EarlierOrphan   = "orphan"   // an orphan transcript attributed to the session (search's source "orphan")
	EarlierArchived = "archived" // an archive a 2026.9 store keeps under the session's key
)
