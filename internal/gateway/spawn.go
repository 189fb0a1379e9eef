package gateway

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/openclaw/sessions/internal/apperr"
)

// Spawning a sub-agent over the gateway. Neither version has an RPC with
// OpenClaw's full sub-agent semantics (the registry row, the completion
// announce): the caller waits (WaitAgent) and announces (Announce) itself.
//
//   - 2026.1.30: OpenClaw's own sessions_spawn recipe
//     (dist/agents/tools/sessions-spawn-tool.js): optional sessions.patch
//     {key, model} (operator.admin), then `agent` on
//     agent:<agent>:subagent:<uuid> with spawnedBy, label, lane "subagent",
//     the sub-agent system prompt as extraSystemPrompt and deliver false.
//   - 2026.9.x: sessions.create {key, agentId, label, parentSessionKey,
//     spawnDepth, task, model, thinkingLevel, timeoutMs} (operator.write), as
//     9.6's own sessions_spawn tool calls it in-process; the gateway starts the
//     task turn through chat.send and answers its runId. An operator
//     connection gets createdVia "operator" and parentSessionKey /
//     parentSessionId / spawnDepth, never spawnedBy (that is reserved to the
//     in-process, trusted agent caller).

// Spawn routes (SpawnStarted.Route).
const (
	RouteAgent          = "agent"           // 1.30: the sessions_spawn recipe
	RouteSessionsCreate = "sessions.create" // 9.x
)

// SubagentLane is the lane of sub-agent turns on 1.30.
const SubagentLane = "subagent"

// DefaultMaxSpawnDepth is agents.defaults.subagents.maxSpawnDepth's default
// on 2026.9 (it appears in the task envelope).
const DefaultMaxSpawnDepth = 5

// SpawnParams describe a sub-agent run.
type SpawnParams struct {
	// RequesterKey is the requesting session: spawnedBy on 1.30,
	// parentSessionKey on 9.x (which must exist there). Required.
	RequesterKey string
	// AgentID is the child's agent; "" = the requester's.
	AgentID string
	Task    string // required
	Label   string
	// Model, when set: 1.30 patches it onto the child first (admin scope; an
	// invalid or disallowed model is a Warning, as in OpenClaw); 9.x passes it
	// to sessions.create.
	Model string
	// Thinking is the thinking level (agent.thinking on 1.30,
	// sessions.create.thinkingLevel on 9.x).
	Thinking string
	// RunTimeoutSeconds aborts the run after that long (0: none).
	RunTimeoutSeconds int
	// SystemPrompt is the sub-agent system prompt (1.30: sent as
	// extraSystemPrompt). 9.x's sessions.create takes none: its task is
	// wrapped in 9.6's own sub-agent task envelope instead
	// (SubagentTaskMessage).
	SystemPrompt string
	// SpawnDepth is the child's depth on 9.x (0: 1); MaxSpawnDepth the
	// configured maximum shown in its task envelope (0: 5).
	SpawnDepth, MaxSpawnDepth int
	// IdempotencyKey names this spawn: the child key is derived from it, so a
	// retry with the same key targets the same child and never starts a
	// second run (1.30: the gateway's agent dedupe, 5 minutes; 9.x: the child
	// is looked up first). Empty: a new one.
	IdempotencyKey string
}

// SpawnStarted is a started sub-agent run.
type SpawnStarted struct {
	Route           string `json:"route"` // RouteAgent | RouteSessionsCreate
	ChildSessionKey string `json:"childSessionKey"`
	SessionID       string `json:"sessionId,omitempty"` // when the gateway says
	// RunID is the run to wait on (WaitAgent): the idempotency key on 1.30,
	// the gateway's chat.send runId on 9.x.
	RunID          string `json:"runId"`
	IdempotencyKey string `json:"idempotencyKey"`
	// Replayed: a retry of the idempotency key found the child (and its run)
	// already there; nothing new was started.
	Replayed bool `json:"replayed,omitempty"`
	// ModelApplied (1.30): the model patch succeeded; Warning: why not.
	ModelApplied bool   `json:"modelApplied,omitempty"`
	Warning      string `json:"warning,omitempty"`
	// LifecycleRevision (9.x) is the child's lifecycle revision at creation.
	LifecycleRevision string `json:"lifecycleRevision,omitempty"`
}

// SubagentKey is the child key a spawn with idempotency key idem uses:
// agent:<agent>:subagent:<uuid>, the uuid derived from idem (a fresh
// idem gives a fresh, random-looking uuid, as OpenClaw's randomUUID).
func SubagentKey(agentID, idem string) string {
	return "agent:" + agentID + ":subagent:" + uuid.NewSHA1(spawnNamespace, []byte(idem)).String()
}

var spawnNamespace = uuid.MustParse("5b0d3c61-5c2a-4b8e-9d0e-6f1e3a1c2b7d")

// AgentOfKey is the agent id of an agent:<id>:… key, or "".
func AgentOfKey(key string) string {
	parts := strings.SplitN(key, ":", 3)
	if len(parts) == 3 && parts[0] == "agent" && parts[1] != "" {
		return parts[1]
	}
	return ""
}

// SubagentTaskMessage is 2026.9.6's sub-agent task envelope
// (buildSubagentTaskMessage, dist/sessions-spawn-tool-*.mjs, spawnMode
// "session"): what its sessions_spawn tool sends as sessions.create's task.
func SubagentTaskMessage(task string, depth, maxDepth int) string {
	return strings.Join([]string{
		fmt.Sprintf("[Subagent Context] You are running as a subagent (depth %d/%d). Complete the current [Subagent Task]; inherited conversation is background context, not your assignment.", depth, maxDepth),
		"[Subagent Context] This subagent session is persistent and remains available for thread follow-up messages.",
		"[Subagent Task]",
		strings.TrimSpace(task),
		"Begin. Execute the assigned task to completion.",
	}, "\n\n")
}

// Spawn creates the child session and starts its task turn, the most
// faithful way the gateway's version allows (see the routes above). Wait for
// the run with WaitAgent(RunID); announce with Announce. On 9.x a child
// created whose turn did not start is returned with the error.
func (c *Client) Spawn(ctx context.Context, p SpawnParams) (*SpawnStarted, error) {
	if strings.TrimSpace(p.Task) == "" {
		return nil, apperr.Usagef("spawn: empty task")
	}
	if p.RequesterKey == "" {
		return nil, apperr.Usagef("spawn: no requester session key")
	}
	if p.RunTimeoutSeconds < 0 || p.SpawnDepth < 0 || p.MaxSpawnDepth < 0 {
		return nil, apperr.Usagef("spawn: negative timeout or depth")
	}
	if p.AgentID == "" {
		p.AgentID = AgentOfKey(p.RequesterKey)
		if p.AgentID == "" {
			p.AgentID = "main"
		}
	}
	if strings.ContainsAny(p.AgentID, ": \t\n") {
		return nil, apperr.Usagef("spawn: invalid agent id %q", p.AgentID)
	}
	if p.IdempotencyKey == "" {
		p.IdempotencyKey = NewIdempotencyKey()
	}
	if c.Protocol() >= 4 {
		return c.spawnCreate(ctx, p)
	}
	return c.spawnAgent(ctx, p)
}

// spawnAgent is 1.30's recipe.
func (c *Client) spawnAgent(ctx context.Context, p SpawnParams) (*SpawnStarted, error) {
	if p.SpawnDepth > 1 {
		return nil, unsupported(c, "agent", "spawnDepth")
	}
	st := &SpawnStarted{Route: RouteAgent, ChildSessionKey: SubagentKey(p.AgentID, p.IdempotencyKey), IdempotencyKey: p.IdempotencyKey}
	if p.Model != "" {
		_, err := c.PatchSession(ctx, st.ChildSessionKey, map[string]any{"model": p.Model})
		switch {
		case err == nil:
			st.ModelApplied = true
		case isRecoverableModelError(err):
			st.Warning = err.Error()
		default:
			return nil, err
		}
	}
	ack, err := c.StartAgent(ctx, AgentParams{
		Message:           p.Task,
		SessionKey:        st.ChildSessionKey,
		IdempotencyKey:    p.IdempotencyKey,
		Deliver:           false,
		Lane:              SubagentLane,
		ExtraSystemPrompt: p.SystemPrompt,
		Thinking:          p.Thinking,
		TimeoutSeconds:    p.RunTimeoutSeconds,
		Label:             p.Label,
		SpawnedBy:         p.RequesterKey,
	})
	if err != nil {
		return nil, err
	}
	st.RunID = ack.RunID
	// A replay of the key answers the cached ack while the run is going (the
	// same bytes as the first answer), its cached final once it ended.
	st.Replayed = ack.Status != "accepted"
	// 1.30's agent wrote the entry before answering: its sessionId (read
	// scope; best effort, the run is started either way).
	if page, err := c.ListSessions(ctx, ListParams{Search: st.ChildSessionKey}); err == nil {
		for _, r := range page.Sessions {
			if r.Key == st.ChildSessionKey {
				st.SessionID = r.SessionID
			}
		}
	}
	return st, nil
}

// isRecoverableModelError: 1.30's sessions_spawn goes on without the model
// for these patch refusals.
func isRecoverableModelError(err error) bool {
	e, ok := AsRPCError(err)
	return ok && (strings.Contains(e.Message, "invalid model") || strings.Contains(e.Message, "model not allowed"))
}

// describedSession is the part of a 9.x sessions.describe row Spawn and
// RemoveSpawned read.
type describedSession struct {
	Key               string `json:"key"`
	SessionID         string `json:"sessionId"`
	ParentSessionKey  string `json:"parentSessionKey"`
	LastRunID         string `json:"lastRunId"`
	Archived          bool   `json:"archived"`
	LifecycleRevision string `json:"lifecycleRevision"`
}

// describe is 9.x's sessions.describe (read): the session, or nil.
func (c *Client) describe(ctx context.Context, key string) (*describedSession, error) {
	var out struct {
		Session *describedSession `json:"session"`
	}
	if err := c.Call(ctx, "sessions.describe", map[string]any{"key": key}, &out); err != nil {
		return nil, err
	}
	return out.Session, nil
}

// createResult is sessions.create's answer.
type createResult struct {
	OK         bool   `json:"ok"`
	Key        string `json:"key"`
	SessionID  string `json:"sessionId"`
	RunStarted bool   `json:"runStarted"`
	RunID      string `json:"runId"`
	Status     string `json:"status"`
	RunError   *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"runError"`
	Entry struct {
		LifecycleRevision string `json:"lifecycleRevision"`
	} `json:"entry"`
}

// spawnCreate is 9.x's sessions.create route.
func (c *Client) spawnCreate(ctx context.Context, p SpawnParams) (*SpawnStarted, error) {
	depth := max(p.SpawnDepth, 1)
	maxDepth := p.MaxSpawnDepth
	if maxDepth == 0 {
		maxDepth = DefaultMaxSpawnDepth
	}
	st := &SpawnStarted{Route: RouteSessionsCreate, ChildSessionKey: SubagentKey(p.AgentID, p.IdempotencyKey), IdempotencyKey: p.IdempotencyKey}
	// A retry of the idempotency key: the child is there already. (9.x's own
	// sessions.create idempotencyKey needs a device identity or a signed-in
	// principal, and on an existing key sessions.create starts the task again.)
	prev, err := c.describe(ctx, st.ChildSessionKey)
	if err != nil {
		return nil, err
	}
	if prev != nil {
		if prev.ParentSessionKey != p.RequesterKey {
			return nil, apperr.Errorf("spawn: %s exists already with another parent (%q)", st.ChildSessionKey, prev.ParentSessionKey)
		}
		st.Replayed, st.SessionID, st.RunID, st.LifecycleRevision = true, prev.SessionID, prev.LastRunID, prev.LifecycleRevision
		if st.RunID == "" {
			return st, apperr.Errorf("spawn: %s exists already but records no run", st.ChildSessionKey)
		}
		return st, nil
	}
	m := map[string]any{
		"key":              st.ChildSessionKey,
		"agentId":          p.AgentID,
		"parentSessionKey": p.RequesterKey,
		"spawnDepth":       depth,
		"task":             SubagentTaskMessage(p.Task, depth, maxDepth),
	}
	setStr(m, "label", p.Label)
	setStr(m, "model", p.Model)
	setStr(m, "thinkingLevel", p.Thinking)
	if p.RunTimeoutSeconds > 0 {
		m["timeoutMs"] = p.RunTimeoutSeconds * 1000
	}
	if c.UsedDevice() {
		// With a device identity the gateway also deduplicates the call.
		m["idempotencyKey"] = p.IdempotencyKey
	}
	var r createResult
	if err := c.Call(ctx, "sessions.create", m, &r); err != nil {
		if e, ok := AsRPCError(err); ok && strings.HasPrefix(e.Message, "unknown parent session") {
			return nil, apperr.NotFoundf("spawn: gateway %s does not know the requester session %s (sessions.create needs an existing parent)", c.url, p.RequesterKey).Wrap(e)
		}
		return nil, err
	}
	if r.Key != "" {
		st.ChildSessionKey = r.Key
	}
	st.SessionID, st.RunID, st.LifecycleRevision = r.SessionID, r.RunID, r.Entry.LifecycleRevision
	if !r.RunStarted || r.RunID == "" {
		why := "the gateway did not start it"
		if r.RunError != nil && r.RunError.Message != "" {
			why = r.RunError.Message
		}
		return st, apperr.Errorf("spawn: child %s created but its task turn did not start: %s", st.ChildSessionKey, why)
	}
	return st, nil
}

// Removed is what RemoveSpawned did.
type Removed struct {
	Key      string   `json:"key"`
	Route    string   `json:"route"` // "sessions.delete" (1.30) | "sessions.patch+sessions.delete" (9.x)
	Archived bool     `json:"archived,omitempty"`
	Deleted  bool     `json:"deleted"`
	Paths    []string `json:"paths,omitempty"` // renamed transcripts
}

type deleteResult struct {
	OK       bool     `json:"ok"`
	Key      string   `json:"key"`
	Deleted  bool     `json:"deleted"`
	Archived []string `json:"archived"`
}

// RemoveSpawned removes a spawned child, refusing when its session is no
// longer expectedSessionID ("" on 1.30: no check). 1.30: sessions.delete
// (operator.admin: a token without it is forbidden, exit 3). 9.x: archive
// (sessions.patch {archived, expectedSessionId}) then sessions.delete
// {archivedOnly, expectedSessionId} — both operator.write, the way 9.6's
// sessions tool deletes; expectedSessionID "" is read from the session.
// A key that does not exist is not found (exit 4).
func (c *Client) RemoveSpawned(ctx context.Context, key, expectedSessionID string) (*Removed, error) {
	if key == "" {
		return nil, apperr.Usagef("remove: no session key")
	}
	if c.Protocol() >= 4 {
		return c.removeArchived(ctx, key, expectedSessionID)
	}
	page, err := c.ListSessions(ctx, ListParams{Search: key})
	if err != nil {
		return nil, err
	}
	var row *SessionRow
	for i := range page.Sessions {
		if page.Sessions[i].Key == key {
			row = &page.Sessions[i]
		}
	}
	if row == nil {
		return nil, apperr.NotFoundf("remove: no session %s on gateway %s", key, c.url)
	}
	if expectedSessionID != "" && row.SessionID != expectedSessionID {
		return nil, apperr.Errorf("remove: %s is now session %s, not %s; left as it is", key, row.SessionID, expectedSessionID)
	}
	var r deleteResult
	if err := c.Call(ctx, "sessions.delete", map[string]any{"key": key, "deleteTranscript": true}, &r); err != nil {
		return nil, adminRefusal(c, "sessions.delete", err)
	}
	return &Removed{Key: key, Route: "sessions.delete", Deleted: r.Deleted, Paths: r.Archived}, nil
}

// ArchiveSpawned archives a child on 9.x (sessions.patch {archived:true,
// expectedSessionId}, operator.write); 1.30 has no archive.
func (c *Client) ArchiveSpawned(ctx context.Context, key, expectedSessionID string) (*Removed, error) {
	if c.Protocol() < 4 {
		return nil, unsupported(c, "sessions.patch", "archived")
	}
	sid, err := c.expectedID(ctx, key, expectedSessionID)
	if err != nil {
		return nil, err
	}
	if err := c.archive(ctx, key, sid); err != nil {
		return nil, err
	}
	return &Removed{Key: key, Route: "sessions.patch", Archived: true}, nil
}

func (c *Client) expectedID(ctx context.Context, key, expected string) (string, error) {
	if expected != "" {
		return expected, nil
	}
	s, err := c.describe(ctx, key)
	if err != nil {
		return "", err
	}
	if s == nil {
		return "", apperr.NotFoundf("remove: no session %s on gateway %s", key, c.url)
	}
	return s.SessionID, nil
}

func (c *Client) archive(ctx context.Context, key, sid string) error {
	var pr PatchResult
	err := c.Call(ctx, "sessions.patch", map[string]any{"key": key, "archived": true, "expectedSessionId": sid}, &pr)
	return lifecycleError(c, "sessions.patch", key, sid, err)
}

func (c *Client) removeArchived(ctx context.Context, key, expected string) (*Removed, error) {
	sid, err := c.expectedID(ctx, key, expected)
	if err != nil {
		return nil, err
	}
	if err := c.archive(ctx, key, sid); err != nil {
		return nil, err
	}
	out := &Removed{Key: key, Route: "sessions.patch+sessions.delete", Archived: true}
	var r deleteResult
	err = c.Call(ctx, "sessions.delete", map[string]any{"key": key, "archivedOnly": true, "expectedSessionId": sid, "deleteTranscript": true}, &r)
	if err := lifecycleError(c, "sessions.delete", key, sid, err); err != nil {
		return out, err
	}
	out.Deleted, out.Paths = r.Deleted, r.Archived
	return out, nil
}

// lifecycleError maps 9.x's refusals of an archive/delete: an unknown key is
// not found, a changed session (details.reason "session-changed") is left
// alone.
func lifecycleError(c *Client, method, key, sid string, err error) error {
	if err == nil {
		return nil
	}
	e, ok := AsRPCError(err)
	if !ok || e.MissingScope() != "" {
		return err
	}
	msg := strings.ToLower(e.Message)
	switch {
	case e.detail("reason") == "session-changed" || strings.Contains(msg, "changed before"):
		return apperr.Errorf("remove: %s is no longer session %s (%s); left as it is", key, sid, e.Message).Wrap(e)
	case strings.Contains(msg, "not found") || strings.Contains(msg, "unknown session"):
		return apperr.NotFoundf("remove: no session %s on gateway %s (%s)", key, c.url, e.Message).Wrap(e)
	}
	return err
}

// adminRefusal says which scope a refused call needs on this version.
func adminRefusal(c *Client, method string, err error) error {
	if e, ok := AsRPCError(err); ok && e.MissingScope() != "" {
		return apperr.Forbiddenf("gateway %s refused %s: the credentials lack the %s scope, which OpenClaw %s needs for it", c.url, method, e.MissingScope(), c.releaseName()).Wrap(e)
	}
	return err
}

// Announce modes.
const (
	// AnnounceAuto appends with chat.inject, or — when the credentials lack
	// operator.admin — runs an agent turn on the requester.
	AnnounceAuto = ""
	// AnnounceInject only appends (chat.inject, operator.admin on both
	// versions): an assistant message with stopReason "injected", no turn.
	AnnounceInject = "inject"
	// AnnounceTurn runs an agent turn on the requester with the announce as
	// its message (operator.write), as OpenClaw's own announce flow does.
	AnnounceTurn = "turn"
)

// AnnounceParams are an announce into the requester session.
type AnnounceParams struct {
	SessionKey string // the requester
	Message    string
	Mode       string // AnnounceAuto | AnnounceInject | AnnounceTurn
	Label      string // chat.inject's label (≤ 100 characters)
	// IdempotencyKey of the turn (AnnounceTurn / the Auto fallback); a retry
	// never runs it twice. chat.inject has none: a retry appends again.
	IdempotencyKey string
	Deliver        bool // the turn's reply goes to the requester's channel
}

// Announced is how the announce went in: Route "chat.inject" with the
// appended MessageID, or "agent" with the RunID of the requester's turn
// (wait for it with WaitAgent).
type Announced struct {
	Route     string `json:"route"`
	MessageID string `json:"messageId,omitempty"`
	RunID     string `json:"runId,omitempty"`
}

// Announce appends an announce to the requester the way the credentials
// allow (see the modes).
func (c *Client) Announce(ctx context.Context, p AnnounceParams) (*Announced, error) {
	if p.SessionKey == "" || strings.TrimSpace(p.Message) == "" {
		return nil, apperr.Usagef("announce: no session key or message")
	}
	switch p.Mode {
	case AnnounceAuto, AnnounceInject:
		m := map[string]any{"sessionKey": p.SessionKey, "message": p.Message}
		if p.Label != "" {
			m["label"] = truncateRunes(p.Label, 100)
		}
		var r struct {
			OK        bool   `json:"ok"`
			MessageID string `json:"messageId"`
		}
		err := c.Call(ctx, "chat.inject", m, &r)
		if err == nil {
			return &Announced{Route: "chat.inject", MessageID: r.MessageID}, nil
		}
		if e, ok := AsRPCError(err); p.Mode == AnnounceAuto && ok && e.MissingScope() == "operator.admin" {
			break
		}
		return nil, adminRefusal(c, "chat.inject", err)
	case AnnounceTurn:
	default:
		return nil, apperr.Usagef("announce: unknown mode %q", p.Mode)
	}
	ack, err := c.StartAgent(ctx, AgentParams{Message: p.Message, SessionKey: p.SessionKey, IdempotencyKey: p.IdempotencyKey, Deliver: p.Deliver})
	if err != nil {
		return nil, err
	}
	return &Announced{Route: "agent", RunID: ack.RunID}, nil
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
