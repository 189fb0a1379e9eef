package ops

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
)

func TestAgentsLocal(t *testing.T) {
	for _, fx := range readFixtures {
		o, _ := newTestOps(t, fixtureDir(t, fx), nil, nil)
		res, err := o.Agents(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.Fleet || !res.SaysRequester || res.Errors != nil || res.DefaultAgent != "main" || res.Requester.AgentID != "main" {
			t.Errorf("%s: %+v", fx, res)
		}
		want := era.JSON
		if fx == "state-2026.9.6" {
			want = era.SQLite
		}
		if len(res.Agents) != 2 {
			t.Fatalf("%s: agents %+v", fx, res.Agents)
		}
		for _, a := range res.Agents {
			if a.Era != want.String() || a.Sessions == nil || *a.Sessions == 0 || !a.Visible || !a.Writable || !a.CanSpawn || a.Reason != "" || a.Context != "" {
				t.Errorf("%s: %+v", fx, a)
			}
		}
	}
}

// Over a gateway every agent is written through it; without --as spawn
// may target each (from its own main session).
func TestAgentsOverGateway(t *testing.T) {
	o, _, s := startGateway(t, 4, gatewaytest.Data{
		Sessions: raws(`{"key":"agent:main:main","sessionId":"s1","updatedAt":2}`, `{"key":"agent:ops:main","sessionId":"s2","updatedAt":1}`, `{"key":"agent:main:x","sessionId":"s3","updatedAt":1}`),
		Agents:   json.RawMessage(`{"defaultId":"main","agents":[{"id":"main","name":"Main"},{"id":"ops"}]}`),
	})
	res, err := o.Agents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Fleet || res.SaysRequester || res.DefaultAgent != "main" || res.Requester.AgentID != "main" || res.Errors != nil {
		t.Errorf("%+v", res)
	}
	if len(res.Agents) != 2 {
		t.Fatalf("agents %+v", res.Agents)
	}
	for i, want := range []struct {
		id       string
		sessions int
	}{{"main", 2}, {"ops", 1}} {
		a := res.Agents[i]
		if a.ID != want.id || a.Era != "gateway" || a.Store != s.URL() || a.Sessions == nil || *a.Sessions != want.sessions ||
			!a.Writable || !a.CanSpawn || a.Reason != "routed through the gateway "+s.URL()+" (the operator's spawn from agent:"+want.id+":main)" {
			t.Errorf("%+v", a)
		}
	}
}
