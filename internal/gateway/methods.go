package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
)

// Both versions validate params against closed schemas: a field the other
// version does not know is rejected ("invalid <method> params"). The helpers
// below build params per negotiated protocol and refuse, before sending, a
// field the gateway's version lacks.

func unsupported(c *Client, method, field string) error {
	return apperr.Statef("gateway %s (protocol %d, OpenClaw %s): %s does not take %s", c.url, c.Protocol(), c.releaseName(), method, field)
}

func (c *Client) releaseName() string {
	if c.Protocol() >= 4 {
		return "2026.9.x"
	}
	return "2026.1.x"
}

// SessionRow is one row of sessions.list: the fields commands read, plus the
// whole row (2026.9 rows are open-ended).
type SessionRow struct {
	Key                string          `json:"key"`
	Kind               string          `json:"kind,omitempty"`
	SessionID          string          `json:"sessionId,omitempty"`
	UpdatedAt          int64           `json:"updatedAt,omitempty"`
	Label              string          `json:"label,omitempty"`
	DisplayName        string          `json:"displayName,omitempty"`
	Channel            string          `json:"channel,omitempty"`
	ChatType           string          `json:"chatType,omitempty"`
	AgentID            string          `json:"agentId,omitempty"`   // 9.x
	SpawnedBy          string          `json:"spawnedBy,omitempty"` // 9.x (1.30 rows never carry it)
	ParentSessionKey   string          `json:"parentSessionKey,omitempty"`
	Model              string          `json:"model,omitempty"`
	ModelProvider      string          `json:"modelProvider,omitempty"`
	SendPolicy         string          `json:"sendPolicy,omitempty"`
	ThinkingLevel      string          `json:"thinkingLevel,omitempty"`
	InputTokens        int64           `json:"inputTokens,omitempty"`
	OutputTokens       int64           `json:"outputTokens,omitempty"`
	TotalTokens        int64           `json:"totalTokens,omitempty"`
	ContextTokens      int64           `json:"contextTokens,omitempty"`
	AbortedLastRun     bool            `json:"abortedLastRun,omitempty"`
	DerivedTitle       string          `json:"derivedTitle,omitempty"`
	LastMessagePreview string          `json:"lastMessagePreview,omitempty"`
	Raw                json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the raw row beside the typed fields.
func (r *SessionRow) UnmarshalJSON(b []byte) error {
	type plain SessionRow
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = SessionRow(p)
	r.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// ListParams are sessions.list's filters. Offset, Archived and
// ExcludeSubagents exist on 2026.9 only.
type ListParams struct {
	Limit                int // 0: the gateway's default (none on 1.30, 100 on 9.x)
	ActiveMinutes        int
	AgentID              string
	Label                string
	SpawnedBy            string
	Search               string
	IncludeGlobal        bool
	IncludeUnknown       bool
	IncludeDerivedTitles bool
	IncludeLastMessage   bool

	Offset           int    // 9.x
	Archived         string // 9.x: "true" | "false" | "all"
	ExcludeSubagents bool   // 9.x
}

func (p ListParams) build(c *Client) (map[string]any, error) {
	m := map[string]any{}
	setInt(m, "limit", p.Limit)
	setInt(m, "activeMinutes", p.ActiveMinutes)
	setStr(m, "agentId", p.AgentID)
	setStr(m, "label", p.Label)
	setStr(m, "spawnedBy", p.SpawnedBy)
	setStr(m, "search", p.Search)
	setBool(m, "includeGlobal", p.IncludeGlobal)
	setBool(m, "includeUnknown", p.IncludeUnknown)
	setBool(m, "includeDerivedTitles", p.IncludeDerivedTitles)
	setBool(m, "includeLastMessage", p.IncludeLastMessage)
	if c.Protocol() < 4 {
		switch {
		case p.Offset > 0:
			return nil, unsupported(c, "sessions.list", "offset")
		case p.Archived != "":
			return nil, unsupported(c, "sessions.list", "archived")
		case p.ExcludeSubagents:
			return nil, unsupported(c, "sessions.list", "excludeSubagents")
		}
		return m, nil
	}
	setInt(m, "offset", p.Offset)
	setBool(m, "excludeSubagents", p.ExcludeSubagents)
	switch p.Archived {
	case "":
	case "true":
		m["archived"] = true
	case "false":
		m["archived"] = false
	case "all":
		m["archived"] = "all"
	default:
		return nil, apperr.Usagef("archived must be true, false or all (got %q)", p.Archived)
	}
	return m, nil
}

// SessionsPage is one sessions.list answer. TotalCount, HasMore and
// NextOffset come from 2026.9 (1.30 returns everything in one page).
type SessionsPage struct {
	TS           int64        `json:"ts"`
	Path         string       `json:"path"`
	Count        int          `json:"count"`
	TotalCount   *int         `json:"totalCount,omitempty"`
	LimitApplied *int         `json:"limitApplied,omitempty"`
	NextOffset   *int         `json:"nextOffset,omitempty"`
	HasMore      bool         `json:"hasMore,omitempty"`
	Sessions     []SessionRow `json:"sessions"`
}

// ListSessions is one sessions.list call.
func (c *Client) ListSessions(ctx context.Context, p ListParams) (*SessionsPage, error) {
	params, err := p.build(c)
	if err != nil {
		return nil, err
	}
	var page SessionsPage
	if err := c.Call(ctx, "sessions.list", params, &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// pageSize is the page ListAllSessions asks 2026.9 for (it has no maximum;
// every page re-sorts offset+limit rows, so fewer, bigger pages are cheaper).
const pageSize = 500

// ListAllSessions returns up to max rows (0: all), following 2026.9's
// pagination (offset/nextOffset); 2026.1.30 answers in one page.
func (c *Client) ListAllSessions(ctx context.Context, p ListParams, max int) (*SessionsPage, error) {
	if c.Protocol() < 4 {
		p.Limit = max
		return c.ListSessions(ctx, p)
	}
	var all *SessionsPage
	p.Offset = 0
	for {
		p.Limit = pageSize
		if max > 0 {
			p.Limit = min(pageSize, max-countRows(all))
		}
		page, err := c.ListSessions(ctx, p)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = page
		} else {
			all.Sessions = append(all.Sessions, page.Sessions...)
			all.HasMore, all.NextOffset = page.HasMore, page.NextOffset
		}
		all.Count = len(all.Sessions)
		if !page.HasMore || page.NextOffset == nil || len(page.Sessions) == 0 || (max > 0 && all.Count >= max) {
			return all, nil
		}
		if *page.NextOffset <= p.Offset {
			return nil, apperr.Statef("gateway %s: sessions.list pagination does not advance (offset %d → %d)", c.url, p.Offset, *page.NextOffset)
		}
		p.Offset = *page.NextOffset
	}
}

func countRows(p *SessionsPage) int {
	if p == nil {
		return 0
	}
	return len(p.Sessions)
}

// HistoryParams are chat.history's. Cursor, AgentID, MaxBytes and Offset
// exist on 2026.9 only.
type HistoryParams struct {
	SessionKey string
	Limit      int // 1..1000; 0: the gateway's default (200)

	AgentID  string          // 9.x
	Cursor   json.RawMessage // 9.x: a deltaCursor from an earlier answer
	MaxBytes int             // 9.x
	Offset   int             // 9.x
}

// History is a chat.history answer. Messages are the gateway's own message
// objects: raw pi messages on 1.30, display-normalized on 9.x.
type History struct {
	SessionKey    string            `json:"sessionKey"`
	SessionID     string            `json:"sessionId,omitempty"`
	Messages      []json.RawMessage `json:"messages"`
	ThinkingLevel string            `json:"thinkingLevel,omitempty"`
	// 9.x:
	Kind          string          `json:"kind,omitempty"` // "delta" | "reset" with a cursor
	DeltaCursor   json.RawMessage `json:"deltaCursor,omitempty"`
	NextOffset    *int            `json:"nextOffset,omitempty"`
	HasMore       bool            `json:"hasMore,omitempty"`
	TotalMessages *int            `json:"totalMessages,omitempty"`
}

// ChatHistory reads a session's transcript.
func (c *Client) ChatHistory(ctx context.Context, p HistoryParams) (*History, error) {
	if p.SessionKey == "" {
		return nil, apperr.Usagef("chat.history: no session key")
	}
	if p.Limit < 0 || p.Limit > 1000 {
		return nil, apperr.Usagef("chat.history: limit must be between 1 and 1000 (got %d)", p.Limit)
	}
	m := map[string]any{"sessionKey": p.SessionKey}
	setInt(m, "limit", p.Limit)
	if c.Protocol() < 4 {
		switch {
		case p.AgentID != "":
			return nil, unsupported(c, "chat.history", "agentId")
		case len(p.Cursor) > 0:
			return nil, unsupported(c, "chat.history", "cursor")
		case p.MaxBytes > 0:
			return nil, unsupported(c, "chat.history", "maxBytes")
		case p.Offset > 0:
			return nil, unsupported(c, "chat.history", "offset")
		}
	} else {
		setStr(m, "agentId", p.AgentID)
		if len(p.Cursor) > 0 {
			m["cursor"] = p.Cursor
		}
		setInt(m, "maxBytes", p.MaxBytes)
		setInt(m, "offset", p.Offset)
	}
	var h History
	if err := c.Call(ctx, "chat.history", m, &h); err != nil {
		return nil, err
	}
	if h.Messages == nil {
		h.Messages = []json.RawMessage{}
	}
	return &h, nil
}

// Patchable fields of sessions.patch per protocol (both schemas are closed).
var (
	patchFields3 = []string{"label", "thinkingLevel", "verboseLevel", "reasoningLevel", "responseUsage",
		"elevatedLevel", "execHost", "execSecurity", "execAsk", "execNode", "model", "spawnedBy", "sendPolicy",
		"groupActivation"}
	patchFields4 = []string{"agentId", "expectedSessionId", "label", "autoLabel", "icon", "color", "category",
		"boardFace", "boardPresentation", "statusNote", "attention", "ttlMinutes", "archived", "pinned", "unread",
		"contextWindow", "thinkingLevel", "fastMode", "toolOverrides", "verboseLevel", "traceLevel",
		"reasoningLevel", "responseUsage", "elevatedLevel", "execHost", "execSecurity", "execAsk", "execNode",
		"permissionMode", "sandboxMode", "nativeRuntimeConsent", "model", "agentRuntime",
		"completionOwnerSessionKey", "sendPolicy", "groupActivation"}
)

// PatchFields lists the fields sessions.patch takes on a protocol version.
func PatchFields(protocol int) []string {
	if protocol >= 4 {
		return slices.Clone(patchFields4)
	}
	return slices.Clone(patchFields3)
}

// PatchResult is sessions.patch's answer; Entry is the stored entry as the
// gateway returns it (full on 1.30, a public projection on 9.x).
type PatchResult struct {
	OK    bool            `json:"ok"`
	Path  string          `json:"path,omitempty"`
	Key   string          `json:"key"`
	Entry json.RawMessage `json:"entry,omitempty"`
}

// PatchSession sets (or, with a nil value, clears) fields of a session entry.
// 1.30 creates a missing key; sessions.patch needs operator.admin there, and
// on 9.x for sendPolicy and the other non-cosmetic fields.
func (c *Client) PatchSession(ctx context.Context, key string, fields map[string]any) (*PatchResult, error) {
	if key == "" {
		return nil, apperr.Usagef("sessions.patch: no session key")
	}
	allowed := PatchFields(c.Protocol())
	m := map[string]any{"key": key}
	for k, v := range fields {
		if !slices.Contains(allowed, k) {
			return nil, unsupported(c, "sessions.patch", k)
		}
		m[k] = v
	}
	var r PatchResult
	if err := c.Call(ctx, "sessions.patch", m, &r); err != nil {
		if e, ok := AsRPCError(err); ok && e.MissingScope() != "" {
			return nil, apperr.Forbiddenf("gateway %s refused sessions.patch: the credentials lack the %s scope, which OpenClaw %s needs for %s", c.url, e.MissingScope(), c.releaseName(), strings.Join(sortedKeys(fields), ", ")).Wrap(e)
		}
		return nil, err
	}
	return &r, nil
}

// AgentParams start an agent turn in a session.
type AgentParams struct {
	Message    string
	SessionKey string
	AgentID    string
	// IdempotencyKey becomes the runId; a retry with the same key never runs
	// the turn twice (the gateway caches it for 5 minutes). Empty: a new one.
	IdempotencyKey    string
	Thinking          string
	TimeoutSeconds    int
	Lane              string
	ExtraSystemPrompt string
	Label             string
	SpawnedBy         string // 1.30 only (9.x removed it from the schema)
	Deliver           bool   // deliver the reply to the session's channel
}

func (p *AgentParams) build(c *Client) (map[string]any, error) {
	if strings.TrimSpace(p.Message) == "" {
		return nil, apperr.Usagef("agent: empty message")
	}
	if p.IdempotencyKey == "" {
		p.IdempotencyKey = NewIdempotencyKey()
	}
	m := map[string]any{"message": p.Message, "idempotencyKey": p.IdempotencyKey, "deliver": p.Deliver}
	setStr(m, "sessionKey", p.SessionKey)
	setStr(m, "agentId", p.AgentID)
	setStr(m, "thinking", p.Thinking)
	setInt(m, "timeout", p.TimeoutSeconds)
	setStr(m, "lane", p.Lane)
	setStr(m, "extraSystemPrompt", p.ExtraSystemPrompt)
	setStr(m, "label", p.Label)
	if p.SpawnedBy != "" {
		if c.Protocol() >= 4 {
			return nil, unsupported(c, "agent", "spawnedBy")
		}
		m["spawnedBy"] = p.SpawnedBy
	}
	return m, nil
}

// Params are the agent params as sent to c's version (for a caller that
// reads the answers itself, e.g. replays of one idempotency key).
func (p AgentParams) Params(c *Client) (map[string]any, error) { return p.build(c) }

// AgentAck is agent's first answer.
type AgentAck struct {
	RunID      string `json:"runId"`
	Status     string `json:"status"` // "accepted" (or a cached final's status)
	AcceptedAt int64  `json:"acceptedAt,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"` // 9.x
	AgentID    string `json:"agentId,omitempty"`    // 9.x
}

// AgentFinal is agent's final answer.
type AgentFinal struct {
	RunID   string `json:"runId"`
	Status  string `json:"status"` // ok | error | timeout
	Summary string `json:"summary,omitempty"`
	Result  struct {
		Payloads []struct {
			Text string `json:"text"`
		} `json:"payloads"`
		Meta json.RawMessage `json:"meta,omitempty"`
	} `json:"result"`
}

// Text joins the reply's text payloads.
func (f *AgentFinal) Text() string {
	var parts []string
	for _, p := range f.Result.Payloads {
		if p.Text != "" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// StartAgent starts a turn and returns once the gateway accepted it; wait
// for it with WaitAgent. The turn's later second answer is dropped.
func (c *Client) StartAgent(ctx context.Context, p AgentParams) (*AgentAck, error) {
	m, err := p.build(c)
	if err != nil {
		return nil, err
	}
	var ack AgentAck
	if err := c.Call(ctx, "agent", m, &ack); err != nil {
		return nil, err
	}
	if ack.RunID == "" {
		ack.RunID = p.IdempotencyKey
	}
	return &ack, nil
}

// RunAgent starts a turn and waits for its final answer (the gateway's
// second response to the same request). onAccepted, if set, gets the ack.
//
// A key whose call is still running on 2026.9.x answers "in_flight", once,
// with no final answer after it (OpenClaw's own CLI prints it and stops):
// RunAgent then waits for the run (agent.wait) and replays the key until
// the gateway answers its cached final, so the result is always final.
// (2026.1.30 answers such a replay with the ack alone, the same bytes as a
// first "accepted": RunAgent waits for a final that does not come, until
// ctx ends. Use a fresh key, or StartAgent and WaitAgent.)
func (c *Client) RunAgent(ctx context.Context, p AgentParams, onAccepted func(AgentAck)) (*AgentFinal, error) {
	m, err := p.build(c)
	if err != nil {
		return nil, err
	}
	var cb func(json.RawMessage)
	if onAccepted != nil {
		cb = func(raw json.RawMessage) {
			var ack AgentAck
			if json.Unmarshal(raw, &ack) == nil {
				onAccepted(ack)
			}
		}
	}
	var fin AgentFinal
	if err := c.CallFinal(ctx, "agent", m, &fin, cb); err != nil {
		return nil, err
	}
	if !stillRunning(fin.Status) {
		return &fin, nil
	}
	runID := fin.RunID
	if runID == "" {
		runID = p.IdempotencyKey
	}
	if onAccepted != nil {
		onAccepted(AgentAck{RunID: runID, Status: fin.Status})
	}
	return c.replayUntilFinal(ctx, m, runID)
}

// stillRunning: an agent answer that says the call is going on, not how it
// ended — the ack ("accepted"; "started" for chat.send) or, replaying a
// running key, 9.x's "in_flight".
func stillRunning(status string) bool {
	switch status {
	case "", "accepted", "started", "in_flight":
		return true
	}
	return false
}

// replayUntilFinal waits for run runID to end and replays the agent call
// m (same idempotency key: nothing runs twice) until the gateway answers
// with its cached final. agent.wait answers at the run's lifecycle end, a
// moment before the call itself has finished, so the replay is retried.
func (c *Client) replayUntilFinal(ctx context.Context, m map[string]any, runID string) (*AgentFinal, error) {
	poll := 50 * time.Millisecond
	for {
		w, err := c.WaitAgent(ctx, runID, 30*time.Second)
		if err != nil {
			return nil, err
		}
		if w.Status == "timeout" || w.Status == "pending" {
			continue // still running: wait again (ctx bounds it)
		}
		var fin AgentFinal
		if err := c.Call(ctx, "agent", m, &fin); err != nil {
			return nil, err
		}
		if !stillRunning(fin.Status) {
			return &fin, nil
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, apperr.Timeoutf("gateway %s: run %s ended but its final answer did not come: %v", c.url, runID, ctx.Err())
		case <-t.C:
		}
		poll = min(2*poll, time.Second)
	}
}

// WaitResult is agent.wait's answer. Status "timeout" (and on 9.x
// "pending") means the run has not ended within the wait.
type WaitResult struct {
	RunID     string `json:"runId"`
	Status    string `json:"status"` // ok | error | timeout | pending (9.x)
	StartedAt int64  `json:"startedAt,omitempty"`
	EndedAt   int64  `json:"endedAt,omitempty"`
	Error     string `json:"error,omitempty"`
	// TerminalReply (9.x) is the run's final reply, e.g. a spawned child's.
	TerminalReply *TerminalReply `json:"terminalReply,omitempty"`
}

// TerminalReply is 2026.9's agent.wait terminalReply.
type TerminalReply struct {
	Disposition string `json:"disposition"` // e.g. "visible"
	Text        string `json:"text"`
}

// WaitAgent waits up to timeout on the gateway for a run to end. The call's
// own deadline is the context's (give it more than timeout).
//
// It answers at the run's lifecycle end, before the agent call itself has
// finished: on 2026.1.30 (seen live) a retry of the idempotency key still
// says "accepted" right after, and the call's own last session-store write
// can overwrite a sessions.patch made in that window. To know the call is
// done, retry StartAgent with the same key until its status is not
// "accepted" (a cached answer; the turn never runs twice), or use RunAgent.
func (c *Client) WaitAgent(ctx context.Context, runID string, timeout time.Duration) (*WaitResult, error) {
	if runID == "" {
		return nil, apperr.Usagef("agent.wait: no run id")
	}
	m := map[string]any{"runId": runID, "timeoutMs": max(timeout.Milliseconds(), 0)}
	var w WaitResult
	if err := c.Call(ctx, "agent.wait", m, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// Health is the gateway's `health` answer (read scope).
func (c *Client) Health(ctx context.Context) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.Call(ctx, "health", map[string]any{}, &out)
	return out, err
}

// Status is the gateway's `status` answer (read scope).
func (c *Client) Status(ctx context.Context) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.Call(ctx, "status", map[string]any{}, &out)
	return out, err
}

// RemoteConfig is config.get's answer: the gateway's resolved config, with
// the gateway's own secrets (gateway.auth / gateway.remote token and
// password) removed.
type RemoteConfig struct {
	Path   string         `json:"path"`
	Exists bool           `json:"exists"`
	Hash   string         `json:"hash,omitempty"`
	Valid  *bool          `json:"valid,omitempty"`
	Config map[string]any `json:"config"`
}

// ConfigGet reads the gateway's config. It needs operator.admin on both
// versions: a token without it is a forbidden error (exit 3).
func (c *Client) ConfigGet(ctx context.Context) (*RemoteConfig, error) {
	var rc RemoteConfig
	if err := c.Call(ctx, "config.get", map[string]any{}, &rc); err != nil {
		return nil, err
	}
	if rc.Config == nil {
		return nil, apperr.Statef("gateway %s: config.get returned no config", c.url)
	}
	if gw, ok := rc.Config["gateway"].(map[string]any); ok {
		for _, sect := range []string{"auth", "remote"} {
			if m, ok := gw[sect].(map[string]any); ok {
				delete(m, "token")
				delete(m, "password")
			}
		}
	}
	return &rc, nil
}

// IsTimeout reports whether err is a call that timed out (exit 5).
func IsTimeout(err error) bool {
	return apperr.CodeOf(err) == apperr.CodeTimeout && errors.Is(err, context.DeadlineExceeded)
}

func setStr(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

func setInt(m map[string]any, k string, v int) {
	if v > 0 {
		m[k] = v
	}
}

func setBool(m map[string]any, k string, v bool) {
	if v {
		m[k] = true
	}
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
