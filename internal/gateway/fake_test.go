package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
)

// fakeGateway is an in-process gateway speaking the handshake and frames of
// the real one, with knobs for the faults.
type fakeGateway struct {
	t        *testing.T
	srv      *httptest.Server
	protocol int  // what this gateway speaks: 3 (1.30) or 4 (9.x)
	caps     bool // challenge carries capabilities (9.x)
	token    string
	// connect, if set, decides the connect answer: a non-nil error frame
	// refuses it (then the socket closes with closeCode).
	connect   func(params map[string]any) (hello map[string]any, refuse *RPCError, closeCode websocket.StatusCode)
	noChallng bool
	// handle answers one request; nil: echo the params back as the payload.
	handle func(s *fakeConn, id, method string, params json.RawMessage)

	mu       sync.Mutex
	connects []map[string]any
	requests []reqRecord
}

type reqRecord struct {
	Method string
	Params map[string]any
}

type fakeConn struct {
	ctx  context.Context
	c    *websocket.Conn
	wmu  sync.Mutex
	gw   *fakeGateway
	Conn *websocket.Conn
}

func (s *fakeConn) send(v any) {
	data, _ := json.Marshal(v)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_ = s.c.Write(s.ctx, websocket.MessageText, data)
}

func (s *fakeConn) res(id string, payload any) {
	s.send(map[string]any{"type": "res", "id": id, "ok": true, "payload": payload})
}

func (s *fakeConn) fail(id string, e RPCError) {
	s.send(map[string]any{"type": "res", "id": id, "ok": false, "error": e})
}

func (s *fakeConn) event(name string, payload any) {
	s.send(map[string]any{"type": "event", "event": name, "payload": payload})
}

func newFake(t *testing.T, protocol int) *fakeGateway {
	g := &fakeGateway{t: t, protocol: protocol, caps: protocol >= 4, token: "secret-token-123"}
	g.srv = httptest.NewServer(httpHandler(g))
	t.Cleanup(g.srv.Close)
	return g
}

func httpHandler(g *fakeGateway) http.Handler { return http.HandlerFunc(g.serve) }

func (g *fakeGateway) url() string { return "ws" + strings.TrimPrefix(g.srv.URL, "http") }

func (g *fakeGateway) opts() Options {
	return Options{URL: g.url(), Token: g.token}
}

func (g *fakeGateway) lastConnect() map[string]any {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.connects) == 0 {
		return nil
	}
	return g.connects[len(g.connects)-1]
}

func (g *fakeGateway) reqs() []reqRecord {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]reqRecord(nil), g.requests...)
}

func (g *fakeGateway) serve(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	c.SetReadLimit(1 << 20)
	ctx := r.Context()
	s := &fakeConn{ctx: ctx, c: c, gw: g, Conn: c}
	defer c.CloseNow()
	if g.noChallng {
		<-ctx.Done()
		return
	}
	chal := map[string]any{"nonce": "nonce-1", "ts": 1795446189848}
	if g.caps {
		chal["capabilities"] = []string{"model-catalog-snapshot"}
	}
	s.event("connect.challenge", chal)
	var req struct {
		ID     string          `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	_, data, err := c.Read(ctx)
	if err != nil {
		return
	}
	if json.Unmarshal(data, &req) != nil || req.Method != "connect" {
		c.Close(websocket.StatusPolicyViolation, "expected connect")
		return
	}
	var params map[string]any
	_ = json.Unmarshal(req.Params, &params)
	g.mu.Lock()
	g.connects = append(g.connects, params)
	g.mu.Unlock()

	hello, refuse, code := g.defaultConnect(params)
	if g.connect != nil {
		hello, refuse, code = g.connect(params)
	}
	if refuse != nil {
		s.fail(req.ID, *refuse)
		c.Close(code, refuse.Message)
		return
	}
	s.res(req.ID, hello)
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var r struct {
			ID     string          `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(data, &r) != nil {
			return
		}
		var pm map[string]any
		_ = json.Unmarshal(r.Params, &pm)
		g.mu.Lock()
		g.requests = append(g.requests, reqRecord{Method: r.Method, Params: pm})
		g.mu.Unlock()
		if g.handle != nil {
			g.handle(s, r.ID, r.Method, r.Params)
		} else {
			s.res(r.ID, json.RawMessage(r.Params))
		}
	}
}

// defaultConnect behaves like a real gateway: protocol range check, the
// shared token, hello-ok.
func (g *fakeGateway) defaultConnect(p map[string]any) (map[string]any, *RPCError, websocket.StatusCode) {
	minP, _ := p["minProtocol"].(float64)
	maxP, _ := p["maxProtocol"].(float64)
	if int(minP) > g.protocol || int(maxP) < g.protocol {
		return nil, &RPCError{Code: "INVALID_REQUEST", Message: "protocol mismatch", Details: json.RawMessage(`{"expectedProtocol":` + itoa(g.protocol) + `}`)}, websocket.StatusProtocolError
	}
	auth, _ := p["auth"].(map[string]any)
	if tok, _ := auth["token"].(string); tok != g.token {
		return nil, &RPCError{Code: "INVALID_REQUEST", Message: "unauthorized: gateway token mismatch (set gateway.remote.token to match gateway.auth.token)"}, websocket.StatusPolicyViolation
	}
	hello := map[string]any{
		"type": "hello-ok", "protocol": g.protocol,
		"server":   map[string]any{"version": "fake", "host": "test", "connId": "c1"},
		"features": map[string]any{"methods": []string{"sessions.list", "chat.history", "agent"}, "events": []string{"chat"}},
		"policy":   map[string]any{"maxPayload": 524288, "tickIntervalMs": 30000},
	}
	if g.protocol >= 4 {
		hello["auth"] = map[string]any{"role": "operator", "scopes": p["scopes"]}
	}
	return hello, nil, 0
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func dial(t *testing.T, o Options) *Client {
	t.Helper()
	c, err := Dial(context.Background(), o)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
