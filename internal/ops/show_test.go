package ops

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
)

// In the state dir, show is the entry as stored and what the state says
// beside it, on both eras: the file and its lock in the JSON era, the
// store (no file) in the SQLite era; the messages counted either way.
func TestShowLocalBothEras(t *testing.T) {
	for _, fx := range readFixtures {
		t.Run(fx, func(t *testing.T) {
			o, logs := newTestOps(t, fixtureDir(t, fx), nil, nil)
			shown, err := o.Show(context.Background(), ShowQuery{Ref: "main"})
			if err != nil {
				t.Fatal(err)
			}
			res := shown.Session
			if res == nil || shown.Fleet != nil {
				t.Fatalf("not one session: %+v", shown)
			}
			if res.Key != "main" || res.StoreKey != "agent:main:main" || res.AgentID != "main" || res.Kind != "main" {
				t.Errorf("names: %+v", res)
			}
			if res.Transcript.Messages == 0 || !res.Transcript.Exists || res.Transcript.LastMessageAt < res.Transcript.FirstMessageAt {
				t.Errorf("transcript: %+v", res.Transcript)
			}
			if res.Lineage.Children == nil || res.Runs == nil || len(res.Entry) == 0 || res.Transcript.Partial {
				t.Errorf("lineage %+v, runs %v, entry %s", res.Lineage, res.Runs, res.Entry)
			}
			var entry map[string]any
			if err := json.Unmarshal(res.Entry, &entry); err != nil || entry["sessionId"] != res.SessionID {
				t.Errorf("entry is not the stored one (%v): %s", err, res.Entry)
			}
			switch fx {
			case "state-2026.1.30":
				if res.Era != era.JSON.String() || !strings.HasSuffix(res.Store, "sessions.json") || res.Transcript.Bytes == nil ||
					!strings.HasSuffix(res.Transcript.Path, res.SessionID+".jsonl") {
					t.Errorf("JSON era: %+v", res)
				}
				if len(res.Lineage.Children) != 1 || len(res.Runs) != 1 || res.Runs[0].Source != ShowRunOpenClaw || res.Runs[0].Role != ShowRoleRequester {
					t.Errorf("lineage %+v runs %+v", res.Lineage, res.Runs)
				}
			default:
				if res.Era != era.SQLite.String() || !strings.HasSuffix(res.Store, "openclaw-agent.sqlite") || res.Transcript.Path != "" ||
					res.Transcript.Bytes != nil || res.Lock != nil {
					t.Errorf("SQLite era: %+v", res)
				}
			}
			if logs.Len() > 0 {
				t.Errorf("warnings: %s", logs)
			}
		})
	}
}

func TestShowNotFound(t *testing.T) {
	o, _ := newTestOps(t, fixtureDir(t, readFixtures[0]), nil, nil)
	_, err := o.Show(context.Background(), ShowQuery{Ref: "agent:main:nope"})
	if apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("want not found, got %v", err)
	}
}

// Over a gateway the same document comes from its row: model and tokens
// from the row's fields, busy from hasActiveRun, the row as the entry.
func TestShowOverGateway(t *testing.T) {
	row := `{"key":"agent:main:main","sessionId":"s1","updatedAt":1795236253191,"modelProvider":"mock","model":"m1","inputTokens":5,"outputTokens":6,"totalTokens":11,"hasActiveRun":true,"label":"l1"}`
	o, logs, s := startGateway(t, 4, gatewaytest.Data{
		Sessions: raws(row),
		History:  map[string][]json.RawMessage{"agent:main:main": chatMessages(3)},
	})
	shown, err := o.Show(context.Background(), ShowQuery{Label: "l1"})
	if err != nil {
		t.Fatal(err)
	}
	res := shown.Session
	if res.Era != "gateway" || res.Store != s.URL() || res.Key != "agent:main:main" || res.SessionID != "s1" || !res.Busy {
		t.Errorf("%+v", res)
	}
	if res.Model == nil || *res.Model != (ShowModel{Provider: "mock", Model: "m1"}) {
		t.Errorf("model %+v", res.Model)
	}
	if res.Tokens == nil || *res.Tokens.Input != 5 || *res.Tokens.Output != 6 || *res.Tokens.Total != 11 || res.Tokens.Context != nil {
		t.Errorf("tokens %+v", res.Tokens)
	}
	if tr := res.Transcript; tr.Messages != 3 || !tr.Exists || tr.FirstMessageAt != 1_000_000 || tr.LastMessageAt != 1_002_000 || tr.Partial {
		t.Errorf("transcript %+v", tr)
	}
	if string(res.Entry) != row || res.Lock != nil || len(res.Runs) != 0 {
		t.Errorf("entry %s lock %v runs %v", res.Entry, res.Lock, res.Runs)
	}
	if logs.Len() > 0 {
		t.Errorf("warnings: %s", logs)
	}
}
