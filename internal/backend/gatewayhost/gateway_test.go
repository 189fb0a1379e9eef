package gatewayhost

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
	"github.com/openclaw/sessions/internal/state"
)

func rows(t *testing.T, js ...string) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, len(js))
	for i, j := range js {
		out[i] = json.RawMessage(j)
	}
	return out
}

func startGW(t *testing.T, protocol int, d gatewaytest.Data) *Gateway {
	t.Helper()
	s := gatewaytest.Start(protocol, "tok", d)
	t.Cleanup(s.Close)
	g := &Gateway{Endpoint: gateway.Endpoint{Context: "c" + string(rune('0'+protocol)), URL: s.URL(), Token: "tok"}}
	t.Cleanup(func() { g.Close() })
	return g
}

func keysOf(rs []state.Row) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Context+"/"+r.Key)
	}
	return out
}

// Over 9.x pages (more rows than one page) the listing follows nextOffset
// and takes the gateway's totalCount; on 1.30 it counts the one page.
func TestGatewayListPagesAndTotals(t *testing.T) {
	var many []json.RawMessage
	for i := range 1203 {
		b, _ := json.Marshal(map[string]any{"key": "agent:main:s" + itoa(i), "updatedAt": 2_000_000 - i, "sessionId": "x"})
		many = append(many, b)
	}
	for _, proto := range []int{3, 4} {
		g := startGW(t, proto, gatewaytest.Data{Sessions: many})
		r, err := g.List(context.Background(), backend.ListQuery{Limit: -1})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Rows) != 1203 || r.Total != 1203 {
			t.Fatalf("protocol %d: %d rows, total %d", proto, len(r.Rows), r.Total)
		}
		r, err = g.List(context.Background(), backend.ListQuery{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Rows) != 10 || r.Total != 1203 || *r.Rows[0].UpdatedAt != 2_000_000 {
			t.Fatalf("protocol %d limit 10: %d rows, total %d", proto, len(r.Rows), r.Total)
		}
	}
}

// A fleet with one host down: the others' rows merged newest first, the
// failed host reported with its typed error, totals summed.
func TestListFleetHostDown(t *testing.T) {
	a := startGW(t, 3, gatewaytest.Data{Sessions: rows(t,
		`{"key":"agent:main:main","updatedAt":300}`, `{"key":"agent:main:cron:x","updatedAt":100}`)})
	b := startGW(t, 4, gatewaytest.Data{Sessions: rows(t, `{"key":"agent:main:main","agentId":"main","updatedAt":200}`)})
	down := &Gateway{Endpoint: gateway.Endpoint{Context: "down", URL: "ws://127.0.0.1:1", Token: "x"}}
	res, failed := backend.ListFleet(context.Background(), []backend.Reader{a, down, b}, backend.ListQuery{Limit: 2})
	if got, want := keysOf(res.Rows), []string{"c3/agent:main:main", "c4/agent:main:main"}; !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	if res.Total != 3 {
		t.Fatalf("total %d, want 3", res.Total)
	}
	if len(failed) != 1 || failed[0].Context != "down" || apperr.CodeOf(failed[0].Err) != apperr.CodeState {
		t.Fatalf("failed %+v", failed)
	}
}

// A refused token is the host's error (exit 3), not the fleet's.
func TestListFleetRefusedToken(t *testing.T) {
	a := startGW(t, 3, gatewaytest.Data{Sessions: rows(t, `{"key":"agent:main:main","updatedAt":1}`)})
	bad := startGW(t, 4, gatewaytest.Data{})
	bad.Endpoint.Token = "wrong"
	res, failed := backend.ListFleet(context.Background(), []backend.Reader{a, bad}, backend.ListQuery{Limit: -1})
	if len(res.Rows) != 1 || len(failed) != 1 || apperr.CodeOf(failed[0].Err) != apperr.CodeForbidden {
		t.Fatalf("rows %d failed %+v", len(res.Rows), failed)
	}
}

// Cursors name a message: appends after the page do not move it, and a
// cursor of another session is refused.
func TestGatewayHistoryCursorSurvivesAppends(t *testing.T) {
	msg := func(ts int, text string) string {
		return `{"role":"assistant","content":[{"type":"text","text":"` + text + `"}],"timestamp":` + itoa(ts) + `}`
	}
	d := gatewaytest.Data{
		Sessions: rows(t, `{"key":"agent:main:main","sessionId":"s1","updatedAt":1}`, `{"key":"agent:main:other","sessionId":"s2","updatedAt":1}`),
		History:  map[string][]json.RawMessage{"agent:main:main": rows(t, msg(1, "a"), msg(2, "b"), msg(2, "c"), msg(3, "d"))},
	}
	s := gatewaytest.Start(3, "tok", d)
	defer s.Close()
	g := &Gateway{Endpoint: gateway.Endpoint{URL: s.URL(), Token: "tok"}}
	defer g.Close()
	ctx := context.Background()
	sess, err := g.Session(ctx, "main", "")
	if err != nil || sess.Key != "agent:main:main" || sess.SessionID != "s1" {
		t.Fatalf("session %+v %v", sess, err)
	}
	p, err := g.History(ctx, sess, backend.HistoryQuery{Limit: 2})
	if err != nil || len(p.Messages) != 2 || !p.More {
		t.Fatalf("page %+v %v", p, err)
	}
	cur, err := g.Cursor(p.CursorBefore(0)) // before "c" (the second message of timestamp 2)
	if err != nil {
		t.Fatal(err)
	}
	s.Emit("chat", map[string]any{"sessionKey": "agent:main:main", "state": "final", "message": json.RawMessage(msg(4, "e"))})
	p2, err := g.History(ctx, sess, backend.HistoryQuery{Limit: 5, Before: cur})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range p2.Messages {
		var v struct {
			Content []struct{ Text string }
		}
		_ = json.Unmarshal(m, &v)
		texts = append(texts, v.Content[0].Text)
	}
	if !slices.Equal(texts, []string{"a", "b"}) || p2.More {
		t.Fatalf("page before: %q more %v", texts, p2.More)
	}
	other, _ := g.Session(ctx, "agent:main:other", "")
	if _, err := g.History(ctx, other, backend.HistoryQuery{Limit: 5, Before: cur}); apperr.CodeOf(err) != apperr.CodeUsage {
		t.Fatalf("cursor of another session: %v", err)
	}
	if _, err := g.Session(ctx, "nope", ""); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("unknown: %v", err)
	}
	var ae *apperr.Error
	if _, err := g.Session(ctx, "", "missing"); !errors.As(err, &ae) || ae.Code != apperr.CodeNotFound {
		t.Fatalf("label: %v", err)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// RowOf derives kind, channel and agent like a local row.
func TestRowOf(t *testing.T) {
	r, err := RowOf(json.RawMessage(`{"key":"agent:ops:discord:channel:9","chatType":"channel","channel":"discord","deliveryContext":{"channel":"discord","to":"9"}}`))
	if err != nil || r.Kind != "group" || r.Channel != "discord" || r.AgentID != "ops" || r.LastTo != "9" || r.DeliveryContext == nil {
		t.Fatalf("%+v %v", r, err)
	}
	r, _ = RowOf(json.RawMessage(`{"key":"agent:main:hook:x","lastChannel":"telegram"}`))
	if r.Kind != "hook" || r.Channel != "internal" || r.AgentID != "main" {
		t.Fatalf("%+v", r)
	}
}

// --active keeps the sessions updated within the last minutes (the fake,
// unlike a real gateway, ignores activeMinutes: the filter here is tested).
func TestGatewayListActive(t *testing.T) {
	now := time.UnixMilli(10 * 60_000)
	g := startGW(t, 4, gatewaytest.Data{Sessions: rows(t,
		`{"key":"agent:main:a","updatedAt":590000}`, `{"key":"agent:main:b","updatedAt":100}`)})
	r, err := g.List(context.Background(), backend.ListQuery{Limit: -1, Active: 5, Now: now})
	if err != nil || len(r.Rows) != 1 || r.Rows[0].Key != "agent:main:a" || r.Total != 1 {
		t.Fatalf("%+v %v", r, err)
	}
}
