package sessionwrite

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/era"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/transcript"
)

func TestChoose(t *testing.T) {
	live := func() (gateway.Endpoint, string, error) {
		return gateway.Endpoint{URL: "ws://127.0.0.1:18789"}, "port 18789 answers", nil
	}
	none := func() (gateway.Endpoint, string, error) {
		return gateway.Endpoint{}, "", apperr.Statef("no OpenClaw gateway is running")
	}
	named := &gateway.Endpoint{URL: "wss://vps.example.com", Context: "vps"}
	sq, js := openState(t, "state-2026.9.6"), openState(t, "state-2026.1.30")
	for _, c := range []struct {
		name     string
		s        bool // sqlite state
		g        *Gateways
		era      era.Era
		through  string // the gateway's URL ("" written here)
		via      string
		labelMax int
		why      string
	}{
		{"sqlite, gateway live", true, &Gateways{Local: live}, era.SQLite, "ws://127.0.0.1:18789", "gateway", 64, "agent main is on the 2026.8+ SQLite store and its gateway is live (port 18789 answers)"},
		{"sqlite, none live", true, &Gateways{Local: none}, era.SQLite, "", "sqlite", 512, "no live gateway for the SQLite store: no OpenClaw gateway is running"},
		{"sqlite, no gateways", true, nil, era.SQLite, "", "sqlite", 512, ""},
		{"json, gateway live", false, &Gateways{Local: live}, era.JSON, "", "json", 64, ""},
	} {
		st := js
		if c.s {
			st = sq
		}
		r, err := Choose(st, "main", Options{Gateways: c.g})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		through := ""
		if r.ThroughGateway() {
			through = r.Gateway.URL
		}
		if r.Era != c.era || through != c.through || r.Named || r.Via() != c.via || r.LabelMax() != c.labelMax || !strings.Contains(r.Why, c.why) {
			t.Errorf("%s: %+v (via %s, label max %d)", c.name, r, r.Via(), r.LabelMax())
		}
		if r.Direct(c.era) == r.ThroughGateway() {
			t.Errorf("%s: direct %v, through a gateway %v", c.name, r.Direct(c.era), r.ThroughGateway())
		}
	}
	// a gateway the invocation names is a host of its own: its route, no
	// era of a store here, a label held to the gateway's limit
	if r := GatewayRoute(*named); r.Era != "" || !r.ThroughGateway() || !r.Named || *r.Gateway != *named || r.Via() != "gateway" || r.LabelMax() != GatewayLabelMax || r.Why != "the gateway this invocation names (vps (wss://vps.example.com))" {
		t.Errorf("GatewayRoute: %+v", r)
	}
	long := strings.Repeat("é", GatewayLabelMax+1)
	if _, err := GatewayRoute(*named).ParseLabel(long); apperr.CodeOf(err) != apperr.CodeUsage || !strings.Contains(err.Error(), "max 64") {
		t.Errorf("a label past the gateway's limit: %v", err)
	}
	if l, err := (Route{Era: era.SQLite}).ParseLabel("  " + long + " "); err != nil || l != long {
		t.Errorf("the same label on a 2026.8+ store here: %q, %v", l, err)
	}
	if _, err := Choose(nil, "main", Options{}); apperr.CodeOf(err) != apperr.CodeState {
		t.Errorf("no state, no gateway: %v", err)
	}
}

// gwWrites starts a fake gateway of protocol and opens the gateway writes
// of agent main on it.
func gwWrites(t *testing.T, protocol int) (Writes, *gatewaytest.Server) {
	t.Helper()
	s := gatewaytest.Start(protocol, "tok", gatewaytest.Data{Sessions: []json.RawMessage{
		json.RawMessage(`{"key":"agent:main:main","kind":"direct","sessionId":"11111111-1111-4111-8111-111111111111","updatedAt":1795446000000,"lastChannel":"telegram","lastTo":"123"}`),
		json.RawMessage(`{"key":"agent:main:cron:x","kind":"direct","sessionId":"22222222-2222-4222-8222-222222222222","updatedAt":1795440000000,"label":"taken"}`),
	}})
	s.W = &gatewaytest.Writes{}
	t.Cleanup(s.Close)
	ep := gateway.Endpoint{URL: s.URL(), Token: "tok"}
	w, err := OpenRoute(nil, "main", GatewayRoute(ep), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return w, s
}

func TestGatewayWrites(t *testing.T) {
	for _, proto := range []int{3, 4} {
		w, s := gwWrites(t, proto)
		ctx := context.Background()
		if r := w.Route(); !r.ThroughGateway() || r.Gateway.URL != s.URL() || r.Era != "" {
			t.Fatalf("route %+v", r)
		}
		l, err := w.Locate("agent:main:main")
		if err != nil {
			t.Fatal(err)
		}
		if l.Entry.SessionID != "11111111-1111-4111-8111-111111111111" || l.Entry.LastChannel != "telegram" || l.Path != "" || !strings.Contains(l.Where, s.URL()) {
			t.Errorf("p%d locate: %+v %+v", proto, l, l.Entry)
		}
		if _, err := w.Locate("agent:main:gone"); apperr.CodeOf(err) != apperr.CodeNotFound {
			t.Errorf("p%d locate gone: %v", proto, err)
		}

		// patch: listed first, then sessions.patch; "" clears
		label, policy := "gw-label", "deny"
		res, err := w.Patch(ctx, "agent:main:main", Patch{Label: &label, SendPolicy: &policy})
		if err != nil {
			t.Fatal(err)
		}
		if gjson.GetBytes(res.Entry, "label").String() != "gw-label" || gjson.GetBytes(res.Entry, "sendPolicy").String() != "deny" {
			t.Errorf("p%d patch: %s", proto, res.Entry)
		}
		clear := ""
		if res, err = w.Patch(ctx, "agent:main:main", Patch{SendPolicy: &clear}); err != nil || gjson.GetBytes(res.Entry, "sendPolicy").Exists() {
			t.Errorf("p%d clear: %v %s", proto, err, res.Entry)
		}
		// a key the gateway does not list is never created (1.30 would)
		nf := apperr.NotFoundf("No session found: x")
		if _, err := w.Patch(ctx, "agent:main:new", Patch{Label: &label, NotFound: nf}); !errors.Is(err, nf) {
			t.Errorf("p%d patch of an unknown key: %v", proto, err)
		}
		// resolved through another session id: gone
		if _, err := w.Patch(ctx, "agent:main:main", Patch{Label: &label, SessionID: "33333333-3333-4333-8333-333333333333", NotFound: nf}); !errors.Is(err, nf) {
			t.Errorf("p%d patch of a moved key: %v", proto, err)
		}
		// the gateway's refusal: a label in use
		taken := "taken"
		if _, err := w.Patch(ctx, "agent:main:main", Patch{Label: &taken}); err == nil || !strings.Contains(err.Error(), "label already in use") {
			t.Errorf("p%d duplicate label: %v", proto, err)
		}

		// turns are the gateway's: never appended, nothing to record
		msg := transcript.DeliveryMirrorMessage("hello", s2t())
		if err := w.Append(ctx, l, "k", "", func(*jsonx.Object) {}, msg); apperr.CodeOf(err) != apperr.CodeState {
			t.Errorf("p%d append of a turn: %v", proto, err)
		}
		if err := w.Append(ctx, l, "k", "", nil, msg, msg); apperr.CodeOf(err) != apperr.CodeState {
			t.Errorf("p%d append of two messages: %v", proto, err)
		}
		if err := w.UpdateEntry(ctx, "agent:main:main", func(*jsonx.Object) { t.Error("update called") }); err != nil {
			t.Errorf("p%d update: %v", proto, err)
		}
		for _, m := range s.Methods() {
			if m == "agent" || m == "chat.inject" {
				t.Errorf("p%d: %s called", proto, m)
			}
		}
	}
}

func TestGatewayWritesRefusedToken(t *testing.T) {
	s := gatewaytest.Start(4, "tok", gatewaytest.Data{})
	t.Cleanup(s.Close)
	w, _ := OpenRoute(nil, "main", Route{Gateway: &gateway.Endpoint{URL: s.URL(), Token: "wrong"}}, Options{})
	if _, err := w.Locate("agent:main:main"); apperr.CodeOf(err) != apperr.CodeForbidden {
		t.Errorf("refused token: %v (code %d)", err, apperr.CodeOf(err))
	}
	w, _ = OpenRoute(nil, "main", Route{Gateway: &gateway.Endpoint{URL: "ws://127.0.0.1:1", Token: "tok"}}, Options{})
	if _, err := w.Locate("agent:main:main"); apperr.CodeOf(err) != apperr.CodeState {
		t.Errorf("unreachable: %v", err)
	}
}

func s2t() (t0 time.Time) { return time.UnixMilli(1795446000000) }
