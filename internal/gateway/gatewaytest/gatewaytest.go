// Package gatewaytest is an in-process OpenClaw gateway for tests of what
// runs over the gateway (internal/backend, the commands, testscripts): the
// real handshake (challenge → connect → hello-ok, protocol 3 or 4, a shared
// token) and the read methods answered from fixed data the way 2026.1.30
// (one page, every agent) and 2026.9.x (offset pages with totalCount,
// hasMore, nextOffset) answer them.
package gatewaytest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/coder/websocket"
)

// Data is what the fake gateway serves.
type Data struct {
	// Sessions are sessions.list rows, newest first (as the gateway sorts).
	Sessions []json.RawMessage `json:"sessions"`
	// History maps a session key to its chat.history messages, oldest first.
	History map[string][]json.RawMessage `json:"history"`
	// Config is config.get's config (nil: config.get is refused "missing
	// scope", as for credentials without the scope it needs: operator.admin
	// on 2026.1.30, operator.read on 2026.9.x).
	Config map[string]any `json:"config,omitempty"`
	// Agents is agents.list's answer (nil: agent "main", the default).
	Agents json.RawMessage `json:"agents,omitempty"`
}

// Server is a running fake gateway.
type Server struct {
	Protocol int    // 3 (OpenClaw 2026.1.30) or 4 (2026.9.x)
	Token    string // the shared token it accepts
	Data     Data
	W        *Writes // the write methods (nil: refused as unknown)

	srv *httptest.Server

	mu      sync.Mutex
	methods []string
	conns   map[*conn]struct{}
	// subscribed: the connections that called sessions.subscribe (9.x),
	// which get sessions.changed when the sessions change.
	subscribed map[*conn]bool
}

// Start starts a fake gateway speaking protocol with token; Close stops it.
func Start(protocol int, token string, d Data) *Server {
	s := &Server{Protocol: protocol, Token: token, Data: d, conns: map[*conn]struct{}{}, subscribed: map[*conn]bool{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the ws:// URL of the gateway.
func (s *Server) URL() string { return "ws" + strings.TrimPrefix(s.srv.URL, "http") }

// Close stops the gateway and drops its connections.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Methods are the methods called so far, in order (connect excluded).
func (s *Server) Methods() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.methods...)
}

// Emit broadcasts an event to every connected client (as 1.30 does, and
// 9.x to readers without the session-scoped-events capability), and
// appends a chat event's final message to the session's history.
func (s *Server) Emit(event string, payload any) {
	s.mu.Lock()
	if event == "chat" {
		var p struct {
			SessionKey string          `json:"sessionKey"`
			State      string          `json:"state"`
			Message    json.RawMessage `json:"message"`
		}
		b, _ := json.Marshal(payload)
		if json.Unmarshal(b, &p) == nil && p.State == "final" && len(p.Message) > 0 {
			if s.Data.History == nil {
				s.Data.History = map[string][]json.RawMessage{}
			}
			s.Data.History[p.SessionKey] = append(s.Data.History[p.SessionKey], p.Message)
		}
	}
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.send(map[string]any{"type": "event", "event": event, "payload": payload})
	}
}

// SetSessions replaces the sessions.list rows (a session added, changed or
// gone on the gateway's host) and, on 9.x, sends sessions.changed to the
// connections that called sessions.subscribe, as 2026.9.6 does. 2026.1.30
// has no such event: its clients learn of it from other events or a poll.
func (s *Server) SetSessions(rows []json.RawMessage) {
	s.mu.Lock()
	s.Data.Sessions = rows
	s.mu.Unlock()
	s.sessionsChanged()
}

// sessionsChanged sends sessions.changed to the sessions.subscribe
// subscribers (9.x).
func (s *Server) sessionsChanged() {
	if s.Protocol < 4 {
		return
	}
	s.mu.Lock()
	var subs []*conn
	for c := range s.subscribed {
		subs = append(subs, c)
	}
	s.mu.Unlock()
	for _, c := range subs {
		c.send(map[string]any{"type": "event", "event": "sessions.changed", "payload": map[string]any{"ts": 1795446189848}})
	}
}

// Clients is the number of connected clients.
func (s *Server) Clients() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

type conn struct {
	ctx context.Context
	ws  *websocket.Conn
	mu  sync.Mutex
}

func (c *conn) send(v any) {
	data, _ := json.Marshal(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.ws.Write(c.ctx, websocket.MessageText, data)
}

func (c *conn) res(id string, payload any) {
	c.send(map[string]any{"type": "res", "id": id, "ok": true, "payload": payload})
}

func (c *conn) fail(id, code, msg string) {
	c.send(map[string]any{"type": "res", "id": id, "ok": false, "error": map[string]any{"code": code, "message": msg}})
}

type request struct {
	ID     string          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ws.SetReadLimit(1 << 20)
	defer ws.CloseNow()
	c := &conn{ctx: r.Context(), ws: ws}
	c.send(map[string]any{"type": "event", "event": "connect.challenge", "payload": map[string]any{"nonce": "nonce-1", "ts": 1795446189848}})
	var req request
	if _, data, err := ws.Read(c.ctx); err != nil || json.Unmarshal(data, &req) != nil || req.Method != "connect" {
		return
	}
	var p struct {
		Min  int `json:"minProtocol"`
		Max  int `json:"maxProtocol"`
		Auth struct {
			Token string `json:"token"`
		} `json:"auth"`
		Scopes []string `json:"scopes"`
	}
	_ = json.Unmarshal(req.Params, &p)
	if p.Min > s.Protocol || p.Max < s.Protocol {
		c.send(map[string]any{"type": "res", "id": req.ID, "ok": false, "error": map[string]any{"code": "INVALID_REQUEST", "message": "protocol mismatch", "details": map[string]any{"expectedProtocol": s.Protocol}}})
		ws.Close(websocket.StatusProtocolError, "protocol mismatch")
		return
	}
	if p.Auth.Token != s.Token {
		c.fail(req.ID, "INVALID_REQUEST", "unauthorized: gateway token mismatch (set gateway.remote.token to match gateway.auth.token)")
		ws.Close(websocket.StatusPolicyViolation, "unauthorized")
		return
	}
	hello := map[string]any{
		"type": "hello-ok", "protocol": s.Protocol,
		"server":   map[string]any{"version": "fake", "host": "gatewaytest", "connId": "c1"},
		"features": map[string]any{"methods": []string{"sessions.list", "chat.history", "agents.list", "config.get", "health"}, "events": []string{"chat", "agent", "tick"}},
		"policy":   map[string]any{"maxPayload": 524288, "tickIntervalMs": 30000},
	}
	if s.Protocol >= 4 {
		hello["auth"] = map[string]any{"role": "operator", "scopes": p.Scopes}
	}
	c.res(req.ID, hello)
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		delete(s.subscribed, c)
		s.mu.Unlock()
	}()
	for {
		_, data, err := ws.Read(c.ctx)
		if err != nil {
			return
		}
		var rq request
		if json.Unmarshal(data, &rq) != nil {
			return
		}
		s.mu.Lock()
		s.methods = append(s.methods, rq.Method)
		s.mu.Unlock()
		s.handle(c, rq)
	}
}

func (s *Server) handle(c *conn, rq request) {
	var m map[string]any
	_ = json.Unmarshal(rq.Params, &m)
	num := func(k string) int { f, _ := m[k].(float64); return int(f) }
	str := func(k string) string { v, _ := m[k].(string); return v }
	if s.handleWrite(c, rq, m) {
		return
	}
	switch rq.Method {
	case "health":
		c.res(rq.ID, map[string]any{"ok": true})
	case "sessions.subscribe":
		if s.Protocol < 4 {
			c.fail(rq.ID, "INVALID_REQUEST", fmt.Sprintf("unknown method: %s", rq.Method))
			return
		}
		s.mu.Lock()
		s.subscribed[c] = true
		s.mu.Unlock()
		c.res(rq.ID, map[string]any{"subscribed": true})
	case "sessions.list":
		rows := s.filterRows(s.rows(str("agentId"), str("spawnedBy")), m)
		out := map[string]any{"ts": 1795446189848, "path": "(multiple)"}
		if s.Protocol < 4 {
			if l := num("limit"); l > 0 && l < len(rows) {
				rows = rows[:l]
			}
			out["count"], out["sessions"] = len(rows), rows
			c.res(rq.ID, out)
			return
		}
		limit, off := num("limit"), num("offset")
		if limit == 0 {
			limit = 100
		}
		total := len(rows)
		page := rows[min(off, total):min(off+limit, total)]
		out["count"], out["totalCount"], out["limitApplied"], out["sessions"] = len(page), total, limit, page
		out["hasMore"] = off+len(page) < total
		if off+len(page) < total {
			out["nextOffset"] = off + len(page)
		} else {
			out["nextOffset"] = nil
		}
		c.res(rq.ID, out)
	case "chat.history":
		key := str("sessionKey")
		s.mu.Lock()
		msgs := append([]json.RawMessage(nil), s.Data.History[key]...)
		s.mu.Unlock()
		limit := num("limit")
		if limit == 0 {
			limit = 200
		}
		total := len(msgs)
		end := total - num("offset") // 9.x: offset counts back from the newest
		end = max(0, min(end, total))
		start := max(0, end-limit)
		out := map[string]any{"sessionKey": key, "messages": msgs[start:end]}
		if id := s.sessionID(key); id != "" {
			out["sessionId"] = id
		}
		if s.Protocol >= 4 {
			out["totalMessages"], out["hasMore"] = total, start > 0
			if start > 0 {
				out["nextOffset"] = total - start
			}
		}
		c.res(rq.ID, out)
	case "agents.list":
		if s.Data.Agents != nil {
			c.res(rq.ID, s.Data.Agents)
			return
		}
		c.res(rq.ID, map[string]any{"defaultId": "main", "mainKey": "main", "scope": "per-sender", "agents": []any{map[string]any{"id": "main"}}})
	case "config.get":
		if s.Data.Config == nil {
			scope := "operator.admin"
			if s.Protocol >= 4 {
				scope = "operator.read"
			}
			s.missingScope(c, rq.ID, scope)
			return
		}
		// The snapshot both versions answer: 2026.1.30 with the file's
		// raw text (secrets and all), 2026.9.x redacted (here: no raw).
		snap := map[string]any{"path": "/fake/openclaw.json", "exists": true, "valid": true, "config": s.Data.Config,
			"parsed": s.Data.Config, "hash": "fakehash", "issues": []any{}, "warnings": []any{}}
		if s.Protocol < 4 {
			raw, _ := json.Marshal(s.Data.Config)
			snap["raw"], snap["legacyIssues"] = string(raw), []any{}
		} else {
			snap["raw"] = nil
		}
		c.res(rq.ID, snap)
	default:
		c.fail(rq.ID, "INVALID_REQUEST", fmt.Sprintf("unknown method: %s", rq.Method))
	}
}

// rows are the sessions.list rows of agent ("": all) spawned by spawnedBy
// ("": any). The filter reads a row's spawnedBy, or else its
// "_spawnedBy": what a 2026.1.30 store knows but its rows never show.
func (s *Server) rows(agent, spawnedBy string) []json.RawMessage {
	out := []json.RawMessage{}
	s.mu.Lock()
	all := s.Data.Sessions
	s.mu.Unlock()
	for _, r := range all {
		var row struct {
			Key         string `json:"key"`
			AgentID     string `json:"agentId"`
			SpawnedBy   string `json:"spawnedBy"`
			StoreParent string `json:"_spawnedBy"`
		}
		_ = json.Unmarshal(r, &row)
		if spawnedBy != "" && row.SpawnedBy != spawnedBy && row.StoreParent != spawnedBy {
			continue
		}
		if agent != "" {
			a := row.AgentID
			if a == "" {
				if parts := strings.Split(row.Key, ":"); len(parts) >= 3 && parts[0] == "agent" {
					a = parts[1]
				}
			}
			if a != agent {
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

func (s *Server) sessionID(key string) string {
	s.mu.Lock()
	all := s.Data.Sessions
	s.mu.Unlock()
	for _, r := range all {
		var row struct {
			Key       string `json:"key"`
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(r, &row) == nil && row.Key == key {
			return row.SessionID
		}
	}
	return ""
}
