package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
)

func fakeGatewayEngine(t *testing.T, protocol int, w *gatewaytest.Writes) (*Gateway, *gatewaytest.Server) {
	t.Helper()
	srv := gatewaytest.Start(protocol, "tok", gatewaytest.Data{})
	srv.W = w
	t.Cleanup(srv.Close)
	g := &Gateway{Endpoint: func() (gateway.Endpoint, error) {
		return gateway.Endpoint{URL: srv.URL(), Token: "tok"}, nil
	}}
	return g, srv
}

func TestGatewayTurn(t *testing.T) {
	for _, proto := range []int{3, 4} {
		var log strings.Builder
		w := &gatewaytest.Writes{TurnDelay: 30 * time.Millisecond, Log: &log}
		g, srv := fakeGatewayEngine(t, proto, w)
		res, err := g.Turn(context.Background(), Request{SessionKey: "agent:main:main", Message: "hello", ExtraSystemPrompt: "ctx", RunID: "run-1", Step: "0-turn-0", Timeout: 10 * time.Second})
		if err != nil {
			t.Fatalf("protocol %d: %v", proto, err)
		}
		if res.Reply != "MOCK reply: hello" || !res.WroteTranscript || !res.WroteStore || res.Usage.Input != 42 || res.Usage.Output != 7 || res.Model != "mock-1" || res.Provider != "mock" {
			t.Errorf("protocol %d: %+v", proto, res)
		}
		if w.Turns() != 1 {
			t.Errorf("turns = %d", w.Turns())
		}
		// the agent call carries the key, the extra system prompt, never spawnedBy
		var first struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		_ = json.Unmarshal([]byte(strings.SplitN(log.String(), "\n", 2)[0]), &first)
		if first.Method != "agent" || first.Params["idempotencyKey"] != "sessions-run-1-0-turn-0" || first.Params["extraSystemPrompt"] != "ctx" || first.Params["sessionKey"] != "agent:main:main" || first.Params["deliver"] != false {
			t.Errorf("agent params %+v", first)
		}
		if _, ok := first.Params["spawnedBy"]; ok {
			t.Errorf("spawnedBy sent")
		}
		if m := srv.Methods(); !contains(m, "agent.wait") {
			t.Errorf("methods %v", m)
		}
		// the same run and step again (a retried runner): the gateway's cached
		// answer, no second turn
		res2, err := g.Turn(context.Background(), Request{SessionKey: "agent:main:main", Message: "hello", RunID: "run-1", Step: "0-turn-0", Timeout: 10 * time.Second})
		if err != nil || res2.Reply != res.Reply || w.Turns() != 1 {
			t.Errorf("replay: %v %+v turns=%d", err, res2, w.Turns())
		}
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func TestGatewayTurnTimeout(t *testing.T) {
	g, _ := fakeGatewayEngine(t, 3, &gatewaytest.Writes{TurnDelay: 5 * time.Second})
	_, err := g.Turn(context.Background(), Request{SessionKey: "agent:main:main", Message: "slow", RunID: "r", Step: "s", Timeout: 1200 * time.Millisecond})
	if err == nil || apperr.CodeOf(err) != apperr.CodeTimeout {
		t.Fatalf("err = %v (code %d)", err, apperr.CodeOf(err))
	}
}

func TestGatewayTurnRefusals(t *testing.T) {
	// wrong token: exit 3; nothing listening: exit 10
	srv := gatewaytest.Start(3, "tok", gatewaytest.Data{})
	srv.W = &gatewaytest.Writes{}
	t.Cleanup(srv.Close)
	g := &Gateway{Endpoint: func() (gateway.Endpoint, error) { return gateway.Endpoint{URL: srv.URL(), Token: "bad"}, nil }}
	if _, err := g.Turn(context.Background(), Request{SessionKey: "k", Message: "m", Timeout: 5 * time.Second}); apperr.CodeOf(err) != apperr.CodeForbidden {
		t.Errorf("bad token: %v", err)
	}
	g = &Gateway{Endpoint: func() (gateway.Endpoint, error) { return gateway.Endpoint{URL: "ws://127.0.0.1:1", Token: "tok"}, nil }}
	if _, err := g.Turn(context.Background(), Request{SessionKey: "k", Message: "m", Timeout: 5 * time.Second}); apperr.CodeOf(err) != apperr.CodeState {
		t.Errorf("unreachable: %v", err)
	}
	if srv.W.Turns() != 0 {
		t.Errorf("a turn ran")
	}
}
