package sqlitewrite

import (
	"database/sql"
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/lazyre"
)

// Child describes a sub-agent session to create.
type Child struct {
	// Key is agent:<agent>:subagent:<lowercase uuid>; "" makes one.
	Key string
	// SessionID is the first generation's id; "" makes a uuid.
	SessionID string
	// ParentKey is the requester's canonical key (spawnedBy,
	// parentSessionKey, completionOwnerSessionKey).
	ParentKey string
	// RequesterAgent is createdActor.id (the requester's agent).
	RequesterAgent string
	// Label, when set, must be unused in this database (exact match).
	Label string
	// Fields are set after the lineage fields, in order (thinkingLevel,
	// model fields …), before the label.
	Fields *jsonx.Object
}

// ChildResult says what CreateChild wrote.
type ChildResult struct {
	Key       string
	SessionID string
	Entry     []byte
	CreatedAt int64
}

// safeSessionID is OpenClaw's session-id rule (paths: ^[\p{L}\p{N}][\p{L}\p{N}\p{M}._:@-]*$, ≤ 255).
var safeSessionID = lazyre.New(`^[\p{L}\p{N}][\p{L}\p{N}\p{M}._:@-]*$`)

var subagentKey = lazyre.New(`^agent:[^:]+:subagent:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// CreateChild creates a spawned sub-agent session row and its window in one
// BEGIN IMMEDIATE transaction, as sessions_spawn's createInitialSubagentSession
// → writeSessionEntry does (no transcript header: the first append writes
// it). It is a listed, valid, idle session; OpenClaw's subagent_runs
// registry knows nothing of it.
func (w *Writer) CreateChild(c Child) (*ChildResult, error) {
	now := w.opts.Now().UnixMilli()
	if c.Key == "" {
		c.Key = "agent:" + w.agentID + ":subagent:" + uuid.NewString()
	}
	if !subagentKey.MatchString(c.Key) || !strings.HasPrefix(c.Key, "agent:"+w.agentID+":") {
		return nil, apperr.Usagef("%q is not a sub-agent key of agent %s (agent:%s:subagent:<uuid>)", c.Key, w.agentID, w.agentID)
	}
	if c.SessionID == "" {
		c.SessionID = uuid.NewString()
	}
	if len(c.SessionID) > 255 || !safeSessionID.MatchString(c.SessionID) {
		return nil, apperr.Usagef("invalid session id %q", c.SessionID)
	}
	parent := strings.TrimSpace(c.ParentKey)
	if parent == "" || !strings.HasPrefix(parent, "agent:") && parent != "global" {
		return nil, apperr.Usagef("a child needs a canonical requester key, got %q", c.ParentKey)
	}
	label := ""
	if c.Label != "" {
		l, err := ParseLabel(c.Label)
		if err != nil {
			return nil, err
		}
		label = l
	}
	res := &ChildResult{Key: c.Key, SessionID: c.SessionID, CreatedAt: now}
	_, err := w.write("create a child session", func(tx dbtx) error {
		var one int
		if err := tx.QueryRow(`SELECT 1 FROM session_nodes WHERE session_key = ?`, c.Key).Scan(&one); err == nil {
			return apperr.Statef("session %s already exists in %s", c.Key, w.path)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err := tx.QueryRow(`SELECT 1 FROM session_windows WHERE session_id = ?`, c.SessionID).Scan(&one); err == nil {
			return apperr.Statef("session id %s already exists in %s", c.SessionID, w.path)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		depth := int64(1)
		if pn, err := readNode(tx, w.path, parent); err == nil {
			if err := pn.checkValid(w.path); err != nil {
				return err
			}
			if d, ok := pn.entry.Number("spawnDepth"); ok && d >= 0 {
				depth = int64(d) + 1
			}
		} else if apperr.CodeOf(err) != apperr.CodeNotFound {
			return err
		}
		if label != "" {
			if err := tx.QueryRow(`SELECT 1 FROM session_nodes WHERE label = ?`, label).Scan(&one); err == nil {
				return apperr.Statef("label already in use: %s", label)
			} else if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		e := jsonx.NewObject()
		_ = e.Set("sessionId", c.SessionID)
		_ = e.Set("updatedAt", now)
		_ = e.Set("spawnDepth", depth)
		_ = e.Set("inheritedToolPolicyVersion", 1)
		_ = e.Set("spawnedBy", parent)
		_ = e.Set("completionOwnerSessionKey", parent)
		_ = e.Set("parentSessionKey", parent)
		if c.Fields != nil {
			for _, k := range c.Fields.Keys() {
				e.SetRaw(k, c.Fields.Raw(k))
			}
		}
		if label != "" {
			_ = e.Set("label", label)
		}
		_ = e.Set("lifecycleRevision", uuid.NewString())
		_ = e.Set("createdVia", "spawn")
		_ = e.Set("createdActor", map[string]string{"type": "agent", "id": c.RequesterAgent})
		_ = e.Set("createdAt", now)
		_ = e.Set("sessionStartedAt", now)
		e.SetRaw("delivery", []byte(`{"kind":"none"}`))
		raw, err := e.MarshalJSON()
		if err != nil {
			return err
		}
		res.Entry = raw
		var labelCol any
		if label != "" {
			labelCol = label
		}
		if _, err := tx.Exec(`INSERT INTO session_nodes(session_key, current_session_id, entry_json, entry_valid, updated_at, status, created_at,
			created_via, created_actor_type, created_actor_id, project_id, parent_session_key, spawned_by,
			fork_source_session_key, fork_source_session_id, fork_source_entry_id, label, display_name, category, icon,
			pinned_at, archived_at, last_read_at, last_interaction_at, last_activity_at)
			VALUES (?, ?, ?, 1, ?, NULL, ?, 'spawn', 'agent', ?, NULL, ?, ?, NULL, NULL, NULL, ?, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
			c.Key, c.SessionID, string(raw), now, now, nullIfBlank(c.RequesterAgent), parent, parent, labelCol); err != nil {
			return err
		}
		if _, err := tx.Exec(`UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?`, c.Key); err != nil {
			return err
		}
		_, err = tx.Exec(`INSERT INTO session_windows(session_id, session_key, reason, created_at, updated_at, session_entry_provenance, acp_owned,
			plugin_owner_id, hook_external_content_source, previous_session_id, session_scope, started_at, ended_at, status, chat_type,
			channel, account_id, model_provider, model, agent_harness_id, parent_session_key, spawned_by, display_name,
			primary_conversation_id, transcript_observed_at)
			VALUES (?, ?, NULL, ?, ?, 1, 0, NULL, NULL, NULL, 'conversation', NULL, NULL, NULL, NULL, NULL, NULL, ?, ?, NULL, ?, ?, ?, NULL, ?)`,
			c.SessionID, c.Key, now, now, normText(e, "modelProvider"), normText(e, "model"), parent, parent, displayName(e), now)
		if err != nil {
			return err
		}
		return w.remember(tx, c.Key)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func nullIfBlank(s string) any {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return strings.TrimSpace(s)
}
