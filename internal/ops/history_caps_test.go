package ops

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// longSecretText is a text over sessions_history's 4000-character cap with
// a credential at its start.
var longSecretText = "use " + plantedSecret + " " + strings.Repeat("z", 5000)

// capsOps is an Ops on a copy of fixture whose first user/assistant text
// became longSecretText.
func capsOps(t *testing.T, fixture string, c Config) *Ops {
	t.Helper()
	o, dir := fixtureOps(t, fixture, nil, c)
	switch fixture {
	case "state-2026.1.30":
		p := filepath.Join(dir, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		const text = "MOCK: tool read returned 18 chars: - ship peer tests"
		if !strings.Contains(string(b), text) {
			t.Fatal("fixture text moved")
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), text, longSecretText, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
	default:
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		res, err := db.Exec(`UPDATE transcript_events SET event_json = replace(event_json, 'MOCK reply', ?) WHERE event_json LIKE '%MOCK reply%'`, longSecretText)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			t.Fatal("fixture text moved")
		}
	}
	return o
}

// An agent's page carries sessions_history's caps and marks (the text cut
// at 4000 characters, contentTruncated, contentRedacted, droppedMessages,
// truncated covering them); the operator's page is as before, without the
// new fields.
func TestHistoryCapsForAgent(t *testing.T) {
	for _, fixture := range []string{"state-2026.1.30", "state-2026.9.6"} {
		for _, agent := range []bool{false, true} {
			name := fixture + "/operator"
			if agent {
				name = fixture + "/agent"
			}
			t.Run(name, func(t *testing.T) {
				c := Config{}
				if agent {
					c.As = "agent:main:main"
				}
				o := capsOps(t, fixture, c)
				sess, err := o.Session(context.Background(), "main", "")
				if err != nil {
					t.Fatal(err)
				}
				defer sess.Close()
				res, err := o.History(context.Background(), sess, HistoryQuery{Limit: 200, IncludeTools: true})
				if err != nil {
					t.Fatal(err)
				}
				var all strings.Builder
				for _, m := range res.Messages {
					all.Write(m)
				}
				if strings.Contains(all.String(), strings.Repeat("z", 4000)) {
					t.Error("a text over 4000 characters was not cut")
				}
				if !strings.Contains(all.String(), `\n…(truncated)…`) {
					t.Errorf("no truncation marker: %.300s", all.String())
				}
				doc, _ := json.Marshal(res)
				var m map[string]any
				if err := json.Unmarshal(doc, &m); err != nil {
					t.Fatal(err)
				}
				if !agent {
					for _, k := range []string{"droppedMessages", "contentTruncated", "contentRedacted", "redacted"} {
						if _, ok := m[k]; ok {
							t.Errorf("operator page has %s: %s", k, doc)
						}
					}
					if res.Truncated || !strings.Contains(all.String(), plantedSecret) {
						t.Errorf("operator page: truncated %v, secret shown %v", res.Truncated, strings.Contains(all.String(), plantedSecret))
					}
					return
				}
				want := map[string]any{"droppedMessages": false, "contentTruncated": true, "contentRedacted": true, "redacted": true, "truncated": true}
				for k, v := range want {
					if m[k] != v {
						t.Errorf("%s = %v, want %v", k, m[k], v)
					}
				}
				if strings.Contains(all.String(), plantedSecret) || !strings.Contains(all.String(), "use sk-abc…1234 zzz") {
					t.Errorf("the credential was not masked: %.300s", all.String())
				}
			})
		}
	}
}

// A message that alone is over the 80 KiB cap reaches an agent as 9.6's
// placeholder; droppedMessages and truncated say so.
func TestHistoryHardCapForAgent(t *testing.T) {
	o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{As: "agent:main:main"})
	p := filepath.Join(dir, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	huge := strings.Repeat("y", 90*1024)
	line := `{"type":"message","id":"hugecall","parentId":"9a84beb3","timestamp":"2026-11-21T04:45:00.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"write","arguments":{"content":"` + huge + `"}}],"timestamp":1795236300000}}` + "\n"
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
	f.Close()
	sess, err := o.Session(context.Background(), "main", "")
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	res, err := o.History(context.Background(), sess, HistoryQuery{Limit: 200, IncludeTools: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 1 || !strings.Contains(string(res.Messages[0]), "[sessions_history omitted: message too large]") {
		t.Fatalf("messages: %.400s", res.Messages)
	}
	if !res.Truncated || res.DroppedMessages == nil || !*res.DroppedMessages || res.Bytes > 80*1024 || !res.HasMore {
		t.Errorf("truncated %v droppedMessages %v bytes %d hasMore %v", res.Truncated, res.DroppedMessages, res.Bytes, res.HasMore)
	}
	if !res.CapDropped() {
		t.Error("CapDropped false")
	}
}
