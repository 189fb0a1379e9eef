package gatewaytest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// What spawning and cleaning up a sub-agent needs, answered the way the
// real versions answer (checked live against 2026.1.30 and 2026.9.6):
// sessions.create and sessions.describe (9.x only; 1.30: unknown method),
// sessions.delete (1.30: admin; 9.x: admin unless archivedOnly on an
// archived session, with expectedSessionId), chat.inject (admin on both).

// patchable4 are the 9.x sessions.patch fields beyond patchable the fake
// knows; writeScope4 the fields a write-scope token may patch on 9.x.
var (
	patchable4  = []string{"archived", "expectedSessionId", "agentId"}
	writeScope4 = []string{"key", "agentId", "expectedSessionId", "label", "archived", "model", "thinkingLevel"}
)

func writeScopePatch(m map[string]any) bool {
	for k := range m {
		if !slices.Contains(writeScope4, k) {
			return false
		}
	}
	return true
}

func (s *Server) handleSpawn(c *conn, rq request, m map[string]any) {
	id := rq.ID
	switch rq.Method {
	case "sessions.create", "sessions.describe":
		if s.Protocol < 4 {
			c.fail(id, "INVALID_REQUEST", "unknown method: "+rq.Method)
			return
		}
	}
	switch rq.Method {
	case "sessions.describe":
		key, _ := m["key"].(string)
		_, row := s.entry(key)
		c.res(id, map[string]any{"session": row})
	case "sessions.create":
		s.create(c, id, m)
	case "sessions.delete":
		s.delete(c, id, m)
	case "chat.inject":
		if s.W.NoAdmin {
			s.missingScope(c, id, "operator.admin")
			return
		}
		key, _ := m["sessionKey"].(string)
		msg, _ := m["message"].(string)
		if l, _ := m["label"].(string); l != "" {
			msg = "[" + l + "]\n\n" + msg // both versions prefix the label
		}
		am, _ := json.Marshal(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": msg}},
			"stopReason": "injected", "timestamp": time.Now().UnixMilli()})
		s.mu.Lock()
		if s.Data.History == nil {
			s.Data.History = map[string][]json.RawMessage{}
		}
		s.Data.History[key] = append(s.Data.History[key], am)
		n := len(s.Data.History[key])
		s.mu.Unlock()
		c.res(id, map[string]any{"ok": true, "messageId": fmt.Sprintf("inj-%d", n)})
	}
}

// entry is the row of key (index and decoded), or -1, nil.
func (s *Server) entry(key string) (int, map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entryLocked(key)
}

func (s *Server) entryLocked(key string) (int, map[string]any) {
	for i, r := range s.Data.Sessions {
		var row map[string]any
		if json.Unmarshal(r, &row) == nil && row["key"] == key {
			return i, row
		}
	}
	return -1, nil
}

// ensureEntry is the entry 1.30's agent writes for its session key: created
// when missing (e.g. not patched before), with the label and spawnedBy of
// the call.
func (s *Server) ensureEntry(key string, m map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, row := s.entryLocked(key)
	if row == nil {
		row = map[string]any{"key": key, "kind": "direct", "sessionId": uuid.NewString()}
	}
	row["updatedAt"] = time.Now().UnixMilli()
	for _, f := range []string{"label", "spawnedBy"} {
		if v, ok := m[f].(string); ok && v != "" {
			row[f] = v
		}
	}
	if l, ok := row["label"]; ok {
		row["displayName"] = l
	}
	raw, _ := json.Marshal(row)
	if i >= 0 {
		s.Data.Sessions[i] = raw
		return
	}
	s.Data.Sessions = append([]json.RawMessage{raw}, s.Data.Sessions...)
}

// create is 9.x's sessions.create with a task: the parent must exist; the
// child records parentSessionKey/parentSessionId/spawnDepth and createdVia
// "operator" (never spawnedBy); the task turn starts with a random runId.
// On an existing key the task runs again (as on the real 9.6).
func (s *Server) create(c *conn, id string, m map[string]any) {
	allowed := []string{"key", "idempotencyKey", "agentId", "label", "model", "thinkingLevel", "parentSessionKey", "spawnDepth", "task", "message", "timeoutMs"}
	for k := range m {
		if !slices.Contains(allowed, k) {
			c.fail(id, "INVALID_REQUEST", fmt.Sprintf("invalid sessions.create params: at root: unexpected property '%s'", k))
			return
		}
	}
	if _, ok := m["idempotencyKey"]; ok {
		c.fail(id, "INVALID_REQUEST", "idempotent session creation requires an authenticated principal or device identity")
		return
	}
	parent, _ := m["parentSessionKey"].(string)
	if _, ok := m["spawnDepth"]; ok && parent == "" {
		c.fail(id, "INVALID_REQUEST", "spawnDepth requires parentSessionKey")
		return
	}
	_, prow := s.entry(parent)
	if parent != "" && prow == nil {
		c.fail(id, "INVALID_REQUEST", "unknown parent session: "+parent)
		return
	}
	key, _ := m["key"].(string)
	agent, _ := m["agentId"].(string)
	if agent == "" {
		agent = "main"
	}
	if key == "" {
		key = "agent:" + agent + ":dashboard:" + uuid.NewString()
	}
	task, _ := m["task"].(string)
	if task == "" {
		task, _ = m["message"].(string)
	}
	runID := uuid.NewString()
	s.mu.Lock()
	idx, row := s.entryLocked(key)
	if row == nil {
		row = map[string]any{"key": key, "kind": "direct", "agentId": agent, "sessionId": uuid.NewString(),
			"lifecycleRevision": uuid.NewString(), "createdVia": "operator", "createdAt": time.Now().UnixMilli(),
			"archived": false}
		if parent != "" {
			row["parentSessionKey"], row["parentSessionId"] = parent, prow["sessionId"]
			row["spawnDepth"] = m["spawnDepth"]
			if row["spawnDepth"] == nil {
				row["spawnDepth"] = 1
			}
		}
		if l, ok := m["label"].(string); ok {
			row["label"], row["displayName"] = l, l
		}
		if strings.Contains(key, ":subagent:") {
			row["classification"] = "subagent"
		}
	}
	row["updatedAt"] = time.Now().UnixMilli()
	if task != "" {
		row["lastRunId"] = runID
	}
	raw, _ := json.Marshal(row)
	if idx < 0 {
		s.Data.Sessions = append([]json.RawMessage{raw}, s.Data.Sessions...)
	} else {
		s.Data.Sessions[idx] = raw
	}
	s.mu.Unlock()
	out := map[string]any{"ok": true, "key": key, "sessionId": row["sessionId"], "entry": row, "runStarted": false,
		"resolved": map[string]any{"modelProvider": "mock", "model": "mock-1"}}
	if task != "" {
		w := s.W
		r := &agentRun{key: key, message: task, started: time.Now().UnixMilli(), done: make(chan struct{})}
		w.mu.Lock()
		if w.runs == nil {
			w.runs = map[string]*agentRun{}
		}
		w.runs[runID] = r
		w.turns++
		w.mu.Unlock()
		s.runTurn(runID, r, nil)
		out["runStarted"], out["runId"], out["status"] = true, runID, "started"
	}
	c.res(id, out)
}

// delete is sessions.delete: 1.30 admin; 9.x admin unless archivedOnly
// (then only on an archived session, with the write-scope fields only).
func (s *Server) delete(c *conn, id string, m map[string]any) {
	key, _ := m["key"].(string)
	archivedOnly := m["archivedOnly"] == true
	if s.Protocol < 4 {
		for k := range m {
			if k != "key" && k != "deleteTranscript" {
				c.fail(id, "INVALID_REQUEST", fmt.Sprintf("invalid sessions.delete params: at root: unexpected property '%s'", k))
				return
			}
		}
	}
	if s.W.NoAdmin && (s.Protocol < 4 || !archivedOnly) {
		s.missingScope(c, id, "operator.admin")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	idx, row := s.entryLocked(key)
	if idx < 0 {
		c.res(id, map[string]any{"ok": true, "key": key, "deleted": false, "archived": []string{}})
		return
	}
	if want, ok := m["expectedSessionId"].(string); ok && row["sessionId"] != want {
		c.send(map[string]any{"type": "res", "id": id, "ok": false, "error": map[string]any{"code": "INVALID_REQUEST",
			"message": "Session " + key + " changed before delete. Retry.", "details": map[string]any{"reason": "session-changed"}}})
		return
	}
	if archivedOnly && row["archivedAt"] == nil {
		c.fail(id, "INVALID_REQUEST", fmt.Sprintf("Session %s is not archived. Archive it first, then delete it.", key))
		return
	}
	s.Data.Sessions = slices.Delete(s.Data.Sessions, idx, idx+1)
	delete(s.Data.History, key)
	c.res(id, map[string]any{"ok": true, "key": key, "deleted": true, "archived": []string{fmt.Sprintf("/fake/%v.jsonl.deleted", row["sessionId"])}})
}

// filterRows applies sessions.list's spawnedBy, search and (9.x) archived
// filters.
func (s *Server) filterRows(rows []json.RawMessage, m map[string]any) []json.RawMessage {
	spawnedBy, _ := m["spawnedBy"].(string)
	search, _ := m["search"].(string)
	out := rows[:0:0]
	for _, r := range rows {
		var row map[string]any
		if json.Unmarshal(r, &row) != nil {
			continue
		}
		if spawnedBy != "" && row["spawnedBy"] != spawnedBy {
			continue
		}
		if search != "" {
			hit := false
			for _, f := range []string{"key", "label", "displayName", "sessionId"} {
				if v, ok := row[f].(string); ok && strings.Contains(strings.ToLower(v), strings.ToLower(search)) {
					hit = true
				}
			}
			if !hit {
				continue
			}
		}
		if s.Protocol >= 4 && m["archived"] != "all" && (row["archivedAt"] != nil) != (m["archived"] == true) {
			continue
		}
		out = append(out, r)
	}
	return out
}
