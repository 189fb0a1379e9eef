package gatewaytest

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// Writes are the write methods of the fake gateway — sessions.patch,
// agent (two answers, deduplicated on the idempotency key, as both
// versions do) and agent.wait — answered the way 2026.1.30 and 2026.9.x
// answer them. Set Server.W before the first client connects.
type Writes struct {
	// NoAdmin: the credentials lack operator.admin, which sessions.patch
	// needs on 1.30 (and on 9.x for sendPolicy): refused "missing scope".
	NoAdmin bool
	// Reply makes the assistant's answer to a message (default
	// "MOCK reply: " + message).
	Reply func(message string) string
	// TurnDelay is how long a turn takes.
	TurnDelay time.Duration
	// Log, when set, gets one JSON line {"method","params"} per write call.
	Log io.Writer

	mu    sync.Mutex
	runs  map[string]*agentRun // by idempotency key
	turns int
}

type agentRun struct {
	key, message string
	reply        string
	started      int64
	ended        int64
	done         chan struct{}
	final        map[string]any
}

// Turns is how many agent turns really ran (a replayed idempotency key
// does not run one).
func (w *Writes) Turns() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.turns
}

// handleWrite answers the write methods; false: not one of them.
func (s *Server) handleWrite(c *conn, rq request, m map[string]any) bool {
	w := s.W
	if w == nil {
		return false
	}
	switch rq.Method {
	case "sessions.patch", "agent", "agent.wait":
	case "sessions.create", "sessions.describe", "sessions.delete", "chat.inject":
	default:
		return false
	}
	if w.Log != nil {
		line, _ := json.Marshal(map[string]any{"method": rq.Method, "params": m})
		w.mu.Lock()
		_, _ = w.Log.Write(append(line, '\n'))
		w.mu.Unlock()
	}
	switch rq.Method {
	case "sessions.patch":
		s.patch(c, rq.ID, m)
	case "agent":
		s.agent(c, rq.ID, m)
	case "agent.wait":
		s.agentWait(c, rq.ID, m)
	default:
		s.handleSpawn(c, rq, m)
	}
	return true
}

func (s *Server) missingScope(c *conn, id, scope string) {
	if s.Protocol >= 4 {
		c.send(map[string]any{"type": "res", "id": id, "ok": false, "error": map[string]any{
			"code": "FORBIDDEN", "message": "missing scope: " + scope,
			"details": map[string]any{"code": "MISSING_SCOPE", "missingScope": scope, "requiredScopes": []string{scope}}}})
		return
	}
	c.fail(id, "INVALID_REQUEST", "missing scope: "+scope)
}

var patchable = []string{"label", "sendPolicy", "thinkingLevel", "model"}

// patch is sessions.patch: admin scope, label unique in the store, null
// clears, a missing key is created (1.30) or refused (9.x).
func (s *Server) patch(c *conn, id string, m map[string]any) {
	if s.W.NoAdmin && (s.Protocol < 4 || !writeScopePatch(m)) {
		s.missingScope(c, id, "operator.admin")
		return
	}
	key, _ := m["key"].(string)
	for k := range m {
		if k != "key" && !slices.Contains(patchable, k) && (s.Protocol < 4 || !slices.Contains(patchable4, k)) {
			c.fail(id, "INVALID_REQUEST", fmt.Sprintf("invalid sessions.patch params: at root: unexpected property '%s'", k))
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	idx := -1
	var entry map[string]any
	for i, r := range s.Data.Sessions {
		var row map[string]any
		if json.Unmarshal(r, &row) == nil && row["key"] == key {
			idx, entry = i, row
		}
	}
	if want, ok := m["expectedSessionId"].(string); ok {
		if idx < 0 || entry["sessionId"] != want {
			c.send(map[string]any{"type": "res", "id": id, "ok": false, "error": map[string]any{"code": "INVALID_REQUEST",
				"message": "Session " + key + " changed before patch. Retry.", "details": map[string]any{"reason": "session-changed"}}})
			return
		}
		delete(m, "expectedSessionId")
	}
	if a, ok := m["archived"].(bool); ok {
		if a {
			m["archivedAt"] = time.Now().UnixMilli()
		} else {
			m["archivedAt"] = nil
		}
	}
	if label, ok := m["label"].(string); ok {
		for _, r := range s.Data.Sessions {
			var row map[string]any
			if json.Unmarshal(r, &row) == nil && row["key"] != key && row["label"] == label {
				c.fail(id, "INVALID_REQUEST", "label already in use: "+label)
				return
			}
		}
	}
	if idx < 0 {
		if s.Protocol >= 4 {
			c.fail(id, "INVALID_REQUEST", "session not found: "+key)
			return
		}
		entry = map[string]any{"key": key, "sessionId": fmt.Sprintf("00000000-0000-4000-8000-%012d", len(s.Data.Sessions)+1)}
	}
	for k, v := range m {
		if k == "key" {
			continue
		}
		if v == nil {
			delete(entry, k)
		} else {
			entry[k] = v
		}
	}
	entry["updatedAt"] = time.Now().UnixMilli()
	raw, _ := json.Marshal(entry)
	if idx < 0 {
		s.Data.Sessions = append(s.Data.Sessions, raw)
	} else {
		s.Data.Sessions[idx] = raw
	}
	out := map[string]any{}
	for k, v := range entry {
		if k != "key" {
			out[k] = v
		}
	}
	c.res(id, map[string]any{"ok": true, "path": "/fake/agents/main/sessions/sessions.json", "key": key, "entry": out})
	go s.sessionsChanged() // after the lock: 9.x tells its subscribers
}

// agent answers {runId,status:"accepted"} at once and the final result
// once the turn ran; a known idempotency key answers in one frame and runs
// nothing: its cached final once the turn ran, before that 1.30's cached
// ack or 9.x's "in_flight".
func (s *Server) agent(c *conn, id string, m map[string]any) {
	w := s.W
	key, _ := m["idempotencyKey"].(string)
	msg, _ := m["message"].(string)
	sk, _ := m["sessionKey"].(string)
	if key == "" || strings.TrimSpace(msg) == "" {
		c.fail(id, "INVALID_REQUEST", "invalid agent params: must have required property 'idempotencyKey'")
		return
	}
	if _, ok := m["spawnedBy"]; ok && s.Protocol >= 4 {
		c.fail(id, "INVALID_REQUEST", "invalid agent params: at root: unexpected property 'spawnedBy'")
		return
	}
	w.mu.Lock()
	if w.runs == nil {
		w.runs = map[string]*agentRun{}
	}
	if r, ok := w.runs[key]; ok {
		w.mu.Unlock()
		select {
		case <-r.done:
			c.res(id, r.final)
		default:
			if s.Protocol >= 4 {
				// 9.x: the call is still going; one answer, no final after it
				c.res(id, map[string]any{"runId": key, "status": "in_flight"})
			} else {
				// 1.30: the cached ack, the same bytes as the first answer
				c.res(id, map[string]any{"runId": key, "status": "accepted", "acceptedAt": r.started})
			}
		}
		return
	}
	r := &agentRun{key: sk, message: msg, started: time.Now().UnixMilli(), done: make(chan struct{})}
	w.runs[key] = r
	w.turns++
	w.mu.Unlock()
	if m["lane"] == "subagent" || m["spawnedBy"] != nil {
		s.ensureEntry(sk, m) // 1.30's agent writes the entry (label, spawnedBy) before answering
	}
	c.res(id, map[string]any{"runId": key, "status": "accepted", "acceptedAt": r.started})
	s.runTurn(key, r, func(final map[string]any) { c.res(id, final) })
}

// runTurn runs the turn of run r (idempotency key / runId key) in the
// background: user and assistant messages into the history, then r.final,
// then done (nil: nobody waits for the final answer).
func (s *Server) runTurn(key string, r *agentRun, done func(final map[string]any)) {
	w := s.W
	msg, sk := r.message, r.key
	go func() {
		time.Sleep(w.TurnDelay)
		reply := "MOCK reply: " + msg
		if w.Reply != nil {
			reply = w.Reply(msg)
		}
		usage := map[string]any{"input": 42, "output": 7, "cacheRead": 0, "cacheWrite": 0, "total": 49}
		now := time.Now().UnixMilli()
		s.mu.Lock()
		if s.Data.History == nil {
			s.Data.History = map[string][]json.RawMessage{}
		}
		um, _ := json.Marshal(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": msg}}, "timestamp": r.started})
		am, _ := json.Marshal(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": reply}},
			"api": "openai-completions", "provider": "mock", "model": "mock-1", "usage": usage, "stopReason": "stop", "timestamp": now})
		s.Data.History[sk] = append(s.Data.History[sk], um, am)
		s.mu.Unlock()
		w.mu.Lock()
		r.ended, r.reply = now, reply
		r.final = map[string]any{"runId": key, "status": "ok", "summary": "completed", "result": map[string]any{
			"payloads": []any{map[string]any{"text": reply, "mediaUrl": nil}},
			"meta": map[string]any{"durationMs": now - r.started, "agentMeta": map[string]any{
				"sessionId": "s-" + key, "provider": "mock", "model": "mock-1", "usage": usage}}}}
		w.mu.Unlock()
		close(r.done)
		if done != nil {
			done(r.final)
		}
	}()
}

// agentWait is agent.wait: {runId,status,startedAt,endedAt} once the run
// ended, {runId,status:"timeout"} after timeoutMs.
func (s *Server) agentWait(c *conn, id string, m map[string]any) {
	w := s.W
	runID, _ := m["runId"].(string)
	ms, ok := m["timeoutMs"].(float64)
	if !ok {
		ms = 30000
	}
	w.mu.Lock()
	r := w.runs[runID]
	w.mu.Unlock()
	go func() {
		if r != nil {
			select {
			case <-r.done:
				w.mu.Lock()
				out := map[string]any{"runId": runID, "status": "ok", "startedAt": r.started, "endedAt": r.ended}
				if s.Protocol >= 4 {
					out["terminalReply"] = map[string]any{"disposition": "visible", "text": r.reply}
				}
				w.mu.Unlock()
				c.res(id, out)
				return
			case <-time.After(time.Duration(ms) * time.Millisecond):
			case <-c.ctx.Done():
				return
			}
		} else {
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
			case <-c.ctx.Done():
				return
			}
		}
		c.res(id, map[string]any{"runId": runID, "status": "timeout"})
	}()
}
