package gateway

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/openclaw/sessions/internal/apperr"
)

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The connect request carries only fields both versions know, and
// negotiates 3..4: a 1.30 gateway answers 3, a 9.x one 4.
func TestDialNegotiatesBothVersions(t *testing.T) {
	for _, proto := range []int{3, 4} {
		t.Run(fmt.Sprint(proto), func(t *testing.T) {
			g := newFake(t, proto)
			c := dial(t, g.opts())
			if c.Protocol() != proto {
				t.Fatalf("protocol %d, want %d", c.Protocol(), proto)
			}
			p := g.lastConnect()
			if got := keys(p); !slices.Equal(got, []string{"auth", "caps", "client", "maxProtocol", "minProtocol", "role", "scopes"}) {
				t.Errorf("connect params %v", got)
			}
			if p["minProtocol"].(float64) != 3 || p["maxProtocol"].(float64) != 4 {
				t.Errorf("range %v..%v", p["minProtocol"], p["maxProtocol"])
			}
			cl := p["client"].(map[string]any)
			if cl["id"] != "cli" || cl["mode"] != "cli" {
				t.Errorf("client %v", cl)
			}
			if got := keys(cl); !slices.Equal(got, []string{"id", "mode", "platform", "version"}) {
				t.Errorf("client fields %v", got)
			}
			if _, ok := p["device"]; ok {
				t.Error("device sent on a loopback connection")
			}
		})
	}
}

// The dial context bounds the handshake only: cancelling it afterwards does
// not end the connection.
func TestDialContextBoundsHandshakeOnly(t *testing.T) {
	g := newFake(t, 4)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := Dial(ctx, g.opts())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cancel()
	time.Sleep(20 * time.Millisecond)
	if err := c.Call(context.Background(), "health", nil, nil); err != nil {
		t.Fatalf("call after the dial context ended: %v", err)
	}
}

func TestPasswordAuth(t *testing.T) {
	g := newFake(t, 3)
	g.connect = func(p map[string]any) (map[string]any, *RPCError, websocket.StatusCode) {
		auth := p["auth"].(map[string]any)
		if auth["password"] != "pw" || auth["token"] != nil {
			return nil, &RPCError{Code: "INVALID_REQUEST", Message: "unauthorized"}, websocket.StatusPolicyViolation
		}
		return map[string]any{"type": "hello-ok", "protocol": 3}, nil, 0
	}
	dial(t, Options{URL: g.url(), Password: "pw"})
}

func TestRefusedToken(t *testing.T) {
	g := newFake(t, 3)
	_, err := Dial(context.Background(), Options{URL: g.url(), Token: "wrong-token-xyz"})
	if apperr.CodeOf(err) != apperr.CodeForbidden {
		t.Fatalf("code %d (%v), want 3", apperr.CodeOf(err), err)
	}
	if strings.Contains(err.Error(), "wrong-token-xyz") {
		t.Fatalf("the token leaked into the error: %v", err)
	}
	if e, ok := AsRPCError(err); !ok || !strings.Contains(e.Message, "token mismatch") {
		t.Fatalf("no RPCError in %v", err)
	}
}

func TestDeviceIdentityRequired(t *testing.T) {
	g := newFake(t, 3)
	g.connect = func(p map[string]any) (map[string]any, *RPCError, websocket.StatusCode) {
		return nil, &RPCError{Code: "NOT_PAIRED", Message: "device identity required"}, websocket.StatusPolicyViolation
	}
	_, err := Dial(context.Background(), Options{URL: g.url()})
	if apperr.CodeOf(err) != apperr.CodeForbidden || !strings.Contains(err.Error(), "OPENCLAW_GATEWAY_TOKEN") {
		t.Fatalf("got %d %v", apperr.CodeOf(err), err)
	}
}

func TestPairingRequired(t *testing.T) {
	for _, tc := range []struct {
		name, details, want string
	}{
		{"1.30", `{"requestId":"84c2bf01-aaaa"}`, "openclaw devices approve 84c2bf01-aaaa"},
		{"9.x", `{"code":"PAIRING_REQUIRED","requestId":"r-77"}`, "openclaw devices approve r-77"},
		{"no id", `{}`, "openclaw devices list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newFake(t, 4)
			g.connect = func(p map[string]any) (map[string]any, *RPCError, websocket.StatusCode) {
				if p["device"] == nil {
					t.Error("no device block")
				}
				return nil, &RPCError{Code: "NOT_PAIRED", Message: "pairing required", Details: json.RawMessage(tc.details)}, websocket.StatusPolicyViolation
			}
			id, _ := NewIdentity(make([]byte, 32))
			o := g.opts()
			o.Device, o.Identity = DeviceAlways, id
			_, err := Dial(context.Background(), o)
			if apperr.CodeOf(err) != apperr.CodeForbidden {
				t.Fatalf("code %d: %v", apperr.CodeOf(err), err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%q does not say %q", err, tc.want)
			}
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Extra["approveCommand"] == nil {
				t.Fatalf("no approveCommand in the JSON error: %#v", ae)
			}
		})
	}
}

func TestProtocolMismatch(t *testing.T) {
	g := newFake(t, 5) // a future gateway
	_, err := Dial(context.Background(), g.opts())
	if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "unsupported protocol") {
		t.Fatalf("got %d %v", apperr.CodeOf(err), err)
	}
	// A hello-ok outside 3..4 is refused too.
	g2 := newFake(t, 3)
	g2.connect = func(map[string]any) (map[string]any, *RPCError, websocket.StatusCode) {
		return map[string]any{"type": "hello-ok", "protocol": 2}, nil, 0
	}
	_, err = Dial(context.Background(), g2.opts())
	if apperr.CodeOf(err) != apperr.CodeState {
		t.Fatalf("got %d %v", apperr.CodeOf(err), err)
	}
}

func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := "ws" + strings.TrimPrefix(srv.URL, "http")
	srv.Close()
	_, err := Dial(context.Background(), Options{URL: u, Token: "t"})
	if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("got %d %v", apperr.CodeOf(err), err)
	}
}

// An HTTP answer that is not an upgrade (a proxy, a wrong path, 2026.9
// refusing forwarding headers) is a handshake failure, saying the status.
func TestUpgradeRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "forbidden", http.StatusForbidden)
	}))
	defer srv.Close()
	_, err := Dial(context.Background(), Options{URL: "ws" + strings.TrimPrefix(srv.URL, "http"), Token: "t"})
	if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "upgrade was refused: HTTP 403") {
		t.Fatalf("got %d %v", apperr.CodeOf(err), err)
	}
}

func TestHandshakeDeadline(t *testing.T) {
	g := newFake(t, 3)
	g.noChallng = true
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := Dial(ctx, g.opts())
	if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "no challenge") {
		t.Fatalf("got %d %v", apperr.CodeOf(err), err)
	}
}

func TestNoScopesGranted(t *testing.T) {
	g := newFake(t, 4)
	g.connect = func(map[string]any) (map[string]any, *RPCError, websocket.StatusCode) {
		return map[string]any{"type": "hello-ok", "protocol": 4, "auth": map[string]any{"role": "operator", "scopes": []string{}}}, nil, 0
	}
	_, err := Dial(context.Background(), g.opts())
	if apperr.CodeOf(err) != apperr.CodeForbidden || !strings.Contains(err.Error(), "no scopes") {
		t.Fatalf("got %d %v", apperr.CodeOf(err), err)
	}
}

func TestStartingGatewayIsRetried(t *testing.T) {
	g := newFake(t, 4)
	var mu sync.Mutex
	n := 0
	g.connect = func(p map[string]any) (map[string]any, *RPCError, websocket.StatusCode) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 1 {
			return nil, &RPCError{Code: "UNAVAILABLE", Message: "starting", Retryable: true, RetryAfterMs: 10}, websocket.StatusTryAgainLater
		}
		return g.defaultConnect(p)
	}
	dial(t, g.opts())
	if n != 2 {
		t.Fatalf("%d connects, want 2", n)
	}
}

func TestDropMidCall(t *testing.T) {
	g := newFake(t, 3)
	g.handle = func(s *fakeConn, id, method string, params json.RawMessage) {
		s.c.CloseNow() // the gateway dies with the call in flight
	}
	c := dial(t, g.opts())
	err := c.Call(context.Background(), "sessions.list", nil, nil)
	if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "connection lost during sessions.list") {
		t.Fatalf("got %d %v", apperr.CodeOf(err), err)
	}
	// Later calls fail at once, the same way.
	err = c.Call(context.Background(), "health", nil, nil)
	if apperr.CodeOf(err) != apperr.CodeState {
		t.Fatalf("after the drop: %d %v", apperr.CodeOf(err), err)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done not closed")
	}
}

// Responses come back in reverse order; every concurrent caller gets its own.
func TestResponsesOutOfOrder(t *testing.T) {
	const n = 20
	g := newFake(t, 4)
	var mu sync.Mutex
	var held []func()
	g.handle = func(s *fakeConn, id, method string, params json.RawMessage) {
		mu.Lock()
		defer mu.Unlock()
		held = append(held, func() { s.res(id, json.RawMessage(params)) })
		if len(held) == n {
			for i := len(held) - 1; i >= 0; i-- {
				held[i]()
			}
		}
	}
	c := dial(t, g.opts())
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out struct{ N int }
			if err := c.Call(context.Background(), "echo", map[string]any{"n": i}, &out); err != nil {
				errs <- err
				return
			}
			if out.N != i {
				errs <- fmt.Errorf("caller %d got %d", i, out.N)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// agentFake answers agent twice (accepted, then final) like the real one,
// and agent.wait before agent's final frame.
func agentFake(t *testing.T, proto int) *fakeGateway {
	g := newFake(t, proto)
	var mu sync.Mutex
	var finals []func()
	g.handle = func(s *fakeConn, id, method string, params json.RawMessage) {
		var p map[string]any
		_ = json.Unmarshal(params, &p)
		switch method {
		case "agent":
			run := p["idempotencyKey"].(string)
			s.res(id, map[string]any{"runId": run, "status": "accepted", "acceptedAt": 1})
			mu.Lock()
			finals = append(finals, func() {
				s.res(id, map[string]any{"runId": run, "status": "ok", "summary": "completed",
					"result": map[string]any{"payloads": []any{map[string]any{"text": "MOCK reply: " + p["message"].(string)}}}})
			})
			mu.Unlock()
			if p["label"] == "final-now" {
				mu.Lock()
				f := finals[len(finals)-1]
				mu.Unlock()
				f()
			}
		case "agent.wait":
			s.res(id, map[string]any{"runId": p["runId"], "status": "ok", "startedAt": 1, "endedAt": 2})
			// agent's own final answer arrives after agent.wait's (as seen live).
			mu.Lock()
			for _, f := range finals {
				f()
			}
			finals = nil
			mu.Unlock()
		default:
			s.res(id, map[string]any{"ok": true})
		}
	}
	return g
}

func TestAgentDoubleAnswer(t *testing.T) {
	g := agentFake(t, 3)
	c := dial(t, g.opts())
	ctx := context.Background()

	// RunAgent skips the accepted answer and returns the final one.
	var acked AgentAck
	fin, err := c.RunAgent(ctx, AgentParams{Message: "hi", SessionKey: "agent:main:main", Label: "final-now"}, func(a AgentAck) { acked = a })
	if err != nil {
		t.Fatal(err)
	}
	if acked.Status != "accepted" || fin.Status != "ok" || fin.Text() != "MOCK reply: hi" || fin.RunID != acked.RunID {
		t.Fatalf("ack %+v final %+v", acked, fin)
	}

	// StartAgent returns the ack; agent.wait settles; agent's late second
	// answer (same id) is dropped without disturbing the next call.
	ack, err := c.StartAgent(ctx, AgentParams{Message: "two", SessionKey: "agent:main:main", IdempotencyKey: "idem-1"})
	if err != nil || ack.RunID != "idem-1" || ack.Status != "accepted" {
		t.Fatalf("ack %+v %v", ack, err)
	}
	w, err := c.WaitAgent(ctx, ack.RunID, time.Second)
	if err != nil || w.Status != "ok" {
		t.Fatalf("wait %+v %v", w, err)
	}
	var out map[string]any
	if err := c.Call(ctx, "health", nil, &out); err != nil || out["ok"] != true {
		t.Fatalf("call after the late answer: %v %v", out, err)
	}
	// The idempotency key went out as given, and deliver is explicit.
	for _, r := range g.reqs() {
		if r.Method == "agent" && r.Params["message"] == "two" {
			if r.Params["idempotencyKey"] != "idem-1" || r.Params["deliver"] != false {
				t.Fatalf("agent params %v", r.Params)
			}
		}
	}
}

func TestAgentFinalError(t *testing.T) {
	g := newFake(t, 3)
	g.handle = func(s *fakeConn, id, method string, params json.RawMessage) {
		s.res(id, map[string]any{"runId": "x", "status": "accepted"})
		s.fail(id, RPCError{Code: "UNAVAILABLE", Message: "model failed"})
	}
	c := dial(t, g.opts())
	_, err := c.RunAgent(context.Background(), AgentParams{Message: "m", IdempotencyKey: "x"}, nil)
	if err == nil || !strings.Contains(err.Error(), "model failed") || apperr.CodeOf(err) != apperr.CodeError {
		t.Fatalf("got %v", err)
	}
}

func TestOversizedFrame(t *testing.T) {
	g := newFake(t, 3)
	g.handle = func(s *fakeConn, id, method string, params json.RawMessage) {
		s.res(id, map[string]any{"blob": strings.Repeat("x", 64<<10)})
	}
	o := g.opts()
	o.ReadLimit = 16 << 10
	c := dial(t, o)
	err := c.Call(context.Background(), "chat.history", nil, nil)
	if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "read limit") {
		t.Fatalf("got %d %v", apperr.CodeOf(err), err)
	}
}

// A request over the gateway's advertised maxPayload is refused before
// sending (the gateway would drop the connection).
func TestRequestOverMaxPayload(t *testing.T) {
	g := newFake(t, 3) // advertises maxPayload 524288, as 1.30 does
	c := dial(t, g.opts())
	err := c.Call(context.Background(), "agent", map[string]any{"message": strings.Repeat("x", 600<<10)}, nil)
	if err == nil || !strings.Contains(err.Error(), "over the gateway's limit of 524288") {
		t.Fatalf("got %v", err)
	}
	if len(g.reqs()) != 0 {
		t.Fatal("the oversized request was sent")
	}
	if err := c.Call(context.Background(), "health", nil, nil); err != nil {
		t.Fatalf("connection unusable after: %v", err)
	}
}

func TestSlowServerDeadline(t *testing.T) {
	g := newFake(t, 3)
	release := make(chan struct{})
	g.handle = func(s *fakeConn, id, method string, params json.RawMessage) {
		if method == "slow" {
			go func() {
				<-release
				s.res(id, map[string]any{"late": true})
			}()
			return
		}
		s.res(id, map[string]any{"fast": true})
	}
	c := dial(t, g.opts())
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := c.Call(ctx, "slow", nil, nil)
	if apperr.CodeOf(err) != apperr.CodeTimeout || !IsTimeout(err) {
		t.Fatalf("got %d %v", apperr.CodeOf(err), err)
	}
	close(release) // the late answer arrives for an abandoned call
	var out map[string]any
	if err := c.Call(context.Background(), "fast", nil, &out); err != nil || out["fast"] != true {
		t.Fatalf("after the timeout: %v %v", out, err)
	}
}

func TestCloseFailsPendingCalls(t *testing.T) {
	g := newFake(t, 3)
	g.handle = func(*fakeConn, string, string, json.RawMessage) {} // never answers
	c := dial(t, g.opts())
	done := make(chan error, 1)
	go func() { done <- c.Call(context.Background(), "hang", nil, nil) }()
	for len(g.reqs()) == 0 {
		time.Sleep(time.Millisecond)
	}
	c.Close()
	err := <-done
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("got %v", err)
	}
	c.Close() // idempotent
	if err := c.Call(context.Background(), "x", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after Close: %v", err)
	}
}

func TestRPCErrorMapping(t *testing.T) {
	g := newFake(t, 4)
	g.handle = func(s *fakeConn, id, method string, params json.RawMessage) {
		switch method {
		case "sessions.patch":
			s.fail(id, RPCError{Code: "FORBIDDEN", Message: "missing scope: operator.admin", Details: json.RawMessage(`{"code":"MISSING_SCOPE","missingScope":"operator.admin"}`)})
		case "sessions.history":
			s.fail(id, RPCError{Code: "INVALID_REQUEST", Message: "unknown method: sessions.history"})
		default:
			s.fail(id, RPCError{Code: "INVALID_REQUEST", Message: "send blocked by session policy"})
		}
	}
	c := dial(t, g.opts())
	ctx := context.Background()
	_, err := c.PatchSession(ctx, "agent:main:main", map[string]any{"sendPolicy": "deny"})
	if apperr.CodeOf(err) != apperr.CodeForbidden || !strings.Contains(err.Error(), "operator.admin") || !strings.Contains(err.Error(), "sendPolicy") {
		t.Fatalf("patch: %d %v", apperr.CodeOf(err), err)
	}
	err = c.Call(ctx, "sessions.history", nil, nil)
	if apperr.CodeOf(err) != apperr.CodeState {
		t.Fatalf("unknown method: %d %v", apperr.CodeOf(err), err)
	}
	err = c.Call(ctx, "agent", nil, nil)
	if e, ok := AsRPCError(err); !ok || e.Message != "send blocked by session policy" || apperr.CodeOf(err) != apperr.CodeError {
		t.Fatalf("policy: %v", err)
	}
}

func TestChatEvents(t *testing.T) {
	g := newFake(t, 3)
	g.handle = func(s *fakeConn, id, method string, params json.RawMessage) {
		s.event("tick", map[string]any{"ts": 1})
		s.event("chat", map[string]any{"runId": "r", "sessionKey": "agent:main:other", "state": "final"})
		s.event("chat", map[string]any{"runId": "r", "sessionKey": "agent:main:main", "seq": 1, "state": "delta", "message": map[string]any{"role": "assistant"}})
		s.event("chat", map[string]any{"runId": "r", "sessionKey": "agent:main:main", "seq": 2, "state": "final"})
		s.res(id, map[string]any{})
	}
	c := dial(t, g.opts())
	sub := c.ChatEvents("agent:main:main")
	all := c.Subscribe(nil)
	if err := c.Call(context.Background(), "go", nil, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var states []string
	for range 2 {
		e, err := sub.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ce, err := DecodeChat(e)
		if err != nil || ce.SessionKey != "agent:main:main" {
			t.Fatalf("%+v %v", ce, err)
		}
		states = append(states, ce.State)
	}
	if !slices.Equal(states, []string{"delta", "final"}) {
		t.Fatalf("states %v", states)
	}
	for _, want := range []string{"tick", "chat", "chat", "chat"} {
		e, err := all.Next(ctx)
		if err != nil || e.Event != want {
			t.Fatalf("got %v %v, want %s", e.Event, err, want)
		}
	}
	sub.Close()
	if _, err := sub.Next(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	// The connection ending ends the other subscription.
	c.Close()
	if _, err := all.Next(ctx); err == nil {
		t.Fatal("subscription outlived the connection")
	}
}

func TestVersionAwareParams(t *testing.T) {
	ctx := context.Background()
	c3 := dial(t, newFake(t, 3).opts())
	g4 := newFake(t, 4)
	g4.handle = func(s *fakeConn, id, method string, params json.RawMessage) {
		s.res(id, map[string]any{"sessions": []any{}, "messages": []any{}, "runId": "x", "status": "accepted"})
	}
	c4 := dial(t, g4.opts())

	refused := []struct {
		name string
		call func() error
	}{
		{"list offset", func() error { _, err := c3.ListSessions(ctx, ListParams{Offset: 10}); return err }},
		{"list archived", func() error { _, err := c3.ListSessions(ctx, ListParams{Archived: "all"}); return err }},
		{"history cursor", func() error {
			_, err := c3.ChatHistory(ctx, HistoryParams{SessionKey: "k", Cursor: json.RawMessage(`"c"`)})
			return err
		}},
		{"patch archived", func() error { _, err := c3.PatchSession(ctx, "k", map[string]any{"archived": true}); return err }},
		{"patch spawnedBy 9.x", func() error { _, err := c4.PatchSession(ctx, "k", map[string]any{"spawnedBy": "x"}); return err }},
		{"agent spawnedBy 9.x", func() error {
			_, err := c4.StartAgent(ctx, AgentParams{Message: "m", SpawnedBy: "agent:main:main"})
			return err
		}},
	}
	for _, r := range refused {
		err := r.call()
		if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "does not take") {
			t.Errorf("%s: %d %v", r.name, apperr.CodeOf(err), err)
		}
	}
	if n := len(g4.reqs()); n != 0 {
		t.Fatalf("refused calls reached the gateway: %d", n)
	}
	if _, err := c4.ListSessions(ctx, ListParams{Offset: 100, Archived: "false", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := c4.ChatHistory(ctx, HistoryParams{SessionKey: "k", Cursor: json.RawMessage(`{"seq":3}`), Limit: 10}); err != nil {
		t.Fatal(err)
	}
	rs := g4.reqs()
	if got := keys(rs[0].Params); !slices.Equal(got, []string{"archived", "limit", "offset"}) || rs[0].Params["archived"] != false {
		t.Errorf("sessions.list params %v", rs[0].Params)
	}
	if got := keys(rs[1].Params); !slices.Equal(got, []string{"cursor", "limit", "sessionKey"}) {
		t.Errorf("chat.history params %v", got)
	}
}

func TestListAllSessionsPaginates(t *testing.T) {
	g := newFake(t, 4)
	const total = 250
	g.handle = func(s *fakeConn, id, method string, params json.RawMessage) {
		var p struct{ Limit, Offset int }
		_ = json.Unmarshal(params, &p)
		p.Limit = min(p.Limit, 100) // a gateway may return less than asked
		var rows []any
		for i := p.Offset; i < min(total, p.Offset+p.Limit); i++ {
			rows = append(rows, map[string]any{"key": fmt.Sprintf("agent:main:s%d", i)})
		}
		next := any(nil)
		if p.Offset+p.Limit < total {
			next = p.Offset + p.Limit
		}
		s.res(id, map[string]any{"count": len(rows), "totalCount": total, "hasMore": next != nil, "nextOffset": next, "sessions": rows})
	}
	c := dial(t, g.opts())
	page, err := c.ListAllSessions(context.Background(), ListParams{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if page.Count != total || len(page.Sessions) != total || page.Sessions[249].Key != "agent:main:s249" || page.HasMore {
		t.Fatalf("count %d rows %d hasMore %v", page.Count, len(page.Sessions), page.HasMore)
	}
	if string(page.Sessions[0].Raw) == "" {
		t.Fatal("raw row not kept")
	}
	page, err = c.ListAllSessions(context.Background(), ListParams{}, 150)
	if err != nil || page.Count != 150 || !page.HasMore {
		t.Fatalf("max 150: %v %v", page.Count, err)
	}
}

// A device connection signs the v2 payload over the challenge nonce, and
// the device token the gateway issues is kept and used later.
func TestDeviceSignatureAndToken(t *testing.T) {
	for _, proto := range []int{3, 4} {
		t.Run(fmt.Sprint(proto), func(t *testing.T) {
			g := newFake(t, proto)
			id, err := LoadOrCreateIdentity(filepath.Join(t.TempDir(), "device.json"), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			store := &TokenStore{Path: filepath.Join(t.TempDir(), "tokens.json")}
			g.connect = func(p map[string]any) (map[string]any, *RPCError, websocket.StatusCode) {
				dev := p["device"].(map[string]any)
				pub, _ := base64.RawURLEncoding.DecodeString(dev["publicKey"].(string))
				sig, _ := base64.RawURLEncoding.DecodeString(dev["signature"].(string))
				sum := sha256.Sum256(pub)
				if dev["id"] != hex.EncodeToString(sum[:]) || dev["nonce"] != "nonce-1" || dev["signedAt"].(float64) != 1795446189848 {
					return nil, &RPCError{Code: "INVALID_REQUEST", Message: "bad device"}, websocket.StatusPolicyViolation
				}
				auth, _ := p["auth"].(map[string]any)
				tok, _ := auth["token"].(string)
				if tok == "" {
					tok, _ = auth["deviceToken"].(string)
				}
				payload := fmt.Sprintf("v2|%s|cli|cli|operator|operator.read,operator.write|1795446189848|%s|nonce-1", dev["id"], tok)
				if !ed25519.Verify(pub, []byte(payload), sig) {
					return nil, &RPCError{Code: "INVALID_REQUEST", Message: "device signature invalid"}, websocket.StatusPolicyViolation
				}
				if tok != g.token && tok != "dev-tok" {
					return nil, &RPCError{Code: "INVALID_REQUEST", Message: "unauthorized"}, websocket.StatusPolicyViolation
				}
				return map[string]any{"type": "hello-ok", "protocol": proto,
					"auth": map[string]any{"deviceToken": "dev-tok", "role": "operator", "scopes": []string{"operator.read", "operator.write"}}}, nil, 0
			}
			o := g.opts()
			o.Device, o.Identity, o.Tokens = DeviceAlways, id, store
			o.Scopes = []string{"operator.read", "operator.write"}
			c := dial(t, o)
			if !c.UsedDevice() {
				t.Fatal("no device")
			}
			dt, ok := store.Get(TokenKey(g.url(), "operator"))
			if !ok || dt.Token != "dev-tok" || dt.Protocol != proto {
				t.Fatalf("stored %+v %v", dt, ok)
			}
			// Without the shared secret, the device token authenticates:
			// as auth.token on 1.30, auth.deviceToken on 9.x.
			o.Token = ""
			dial(t, o)
			auth := g.lastConnect()["auth"].(map[string]any)
			field := map[int]string{3: "token", 4: "deviceToken"}[proto]
			if auth[field] != "dev-tok" || len(auth) != 1 {
				t.Fatalf("auth %v", keys(auth))
			}
		})
	}
}

func TestWantDevice(t *testing.T) {
	for _, tc := range []struct {
		mode           DeviceMode
		loopback, caps bool
		want           bool
	}{
		{DeviceAuto, true, true, false},   // 9.x on loopback: token is enough
		{DeviceAuto, false, true, true},   // 9.x remote: device needed
		{DeviceAuto, false, false, false}, // 1.30 remote: token alone, no pairing
		{DeviceAlways, true, false, true},
		{DeviceNever, false, true, false},
	} {
		if got := wantDevice(tc.mode, tc.loopback, tc.caps); got != tc.want {
			t.Errorf("%+v: %v", tc, got)
		}
	}
}

// The key file is created only when a connection needs a device.
func TestIdentityLoadedOnDemand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	g := newFake(t, 4)
	o, err := g.opts().WithDefaultDeviceFiles()
	if err != nil {
		t.Fatal(err)
	}
	dial(t, o) // loopback: no device
	if _, err := os.Stat(o.IdentityPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("key created for a loopback connection: %v", err)
	}
	g.connect = func(p map[string]any) (map[string]any, *RPCError, websocket.StatusCode) {
		if p["device"] == nil {
			return nil, &RPCError{Code: "INVALID_REQUEST", Message: "no device"}, websocket.StatusPolicyViolation
		}
		return map[string]any{"type": "hello-ok", "protocol": 4, "auth": map[string]any{"deviceToken": "dt", "scopes": []string{"operator.admin"}}}, nil, 0
	}
	o.Device = DeviceAlways
	dial(t, o)
	st, err := os.Stat(o.IdentityPath)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", st, err)
	}
	if dt, ok := o.Tokens.Get(TokenKey(g.url(), "operator")); !ok || dt.Token != "dt" {
		t.Fatalf("device token not kept: %+v", dt)
	}
	if st, _ := os.Stat(o.Tokens.Path); st.Mode().Perm() != 0o600 {
		t.Fatalf("tokens file mode %v", st.Mode())
	}
}

func TestAutoDeviceWithoutIdentity(t *testing.T) {
	g := newFake(t, 4)
	_, err := Dial(context.Background(), Options{URL: g.url(), Token: g.token, Device: DeviceAlways})
	if apperr.CodeOf(err) != apperr.CodeUsage {
		t.Fatalf("got %v", err)
	}
}
