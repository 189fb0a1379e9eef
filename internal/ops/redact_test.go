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

const plantedSecret = "sk-abcdefghijklmnop1234"

// redactOps is an Ops on a copy of the 1.30 fixture whose main transcript's
// last assistant text carries a credential.
func redactOps(t *testing.T, env map[string]string, c Config) *Ops {
	t.Helper()
	o, dir := fixtureOps(t, "state-2026.1.30", env, c)
	p := filepath.Join(dir, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const text = "MOCK: tool read returned 18 chars: - ship peer tests"
	if !strings.Contains(string(b), text) {
		t.Fatal("fixture text moved")
	}
	b = []byte(strings.Replace(string(b), text, "use "+plantedSecret+" please", 1))
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestHistoryRedaction(t *testing.T) {
	cases := []struct {
		name   string
		env    map[string]string
		cfg    Config
		masked bool
	}{
		{"operator", nil, Config{}, false},
		{"--redact", nil, Config{Redact: true}, true},
		{"--as", nil, Config{As: "agent:main:main"}, true},
		{"$OPENCLAW_SESSION_KEY", map[string]string{"OPENCLAW_SESSION_KEY": "agent:main:main"}, Config{}, true},
	}
	for _, c := range cases {
		for _, raw := range []bool{false, true} {
			t.Run(c.name, func(t *testing.T) {
				o := redactOps(t, c.env, c.cfg)
				sess, err := o.Session(context.Background(), "main", "")
				if err != nil {
					t.Fatal(err)
				}
				defer sess.Close()
				res, err := o.History(context.Background(), sess, HistoryQuery{Limit: 200, IncludeTools: true, Raw: raw})
				if err != nil {
					t.Fatal(err)
				}
				var all strings.Builder
				for _, m := range res.Messages {
					all.Write(m)
				}
				hasSecret := strings.Contains(all.String(), plantedSecret)
				hasMask := strings.Contains(all.String(), "use sk-abc…1234 please")
				if hasSecret == c.masked || hasMask != c.masked || res.Redacted != c.masked {
					t.Errorf("raw=%v: secret shown %v, mask shown %v, redacted %v; want masked %v", raw, hasSecret, hasMask, res.Redacted, c.masked)
				}
			})
		}
	}
}

// list --messages and search (snippet, match, context) mask the same way.
func TestListAndSearchRedaction(t *testing.T) {
	for _, masked := range []bool{false, true} {
		o := redactOps(t, nil, Config{Redact: masked})
		lr, err := o.List(context.Background(), ListQuery{Limit: 50, Messages: 3})
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for _, r := range lr.Sessions {
			for _, m := range r.Messages {
				all.Write(m)
			}
		}
		if strings.Contains(all.String(), plantedSecret) == masked || strings.Contains(all.String(), "sk-abc…1234") != masked {
			t.Errorf("list --messages, masked %v: %s", masked, all.String())
		}
		for _, pattern := range []string{"please", "sk-abcdef", "ship"} {
			sr, err := o.Search(context.Background(), SearchQuery{Pattern: SearchPattern{Pattern: pattern}, Context: 1, IncludeTools: true})
			if err != nil {
				t.Fatal(err)
			}
			sr.Fill()
			doc, _ := json.Marshal(sr)
			if strings.Contains(string(doc), plantedSecret) == masked {
				t.Errorf("search %q, masked %v: %s", pattern, masked, doc)
			}
			for i := range sr.Hits {
				b, m, a := sr.Highlight(i)
				if strings.Contains(b+m+a, plantedSecret) == masked && strings.Contains(sr.Hits[i].Snippet, "please") {
					t.Errorf("search %q highlight, masked %v: %q %q %q", pattern, masked, b, m, a)
				}
			}
		}
	}
}

// The SQLite era: the same masking of the events' texts.
func TestHistoryRedactionSQLite(t *testing.T) {
	for _, masked := range []bool{false, true} {
		o, dir := fixtureOps(t, "state-2026.9.6", nil, Config{Redact: masked})
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := db.Exec(`UPDATE transcript_events SET event_json = replace(event_json, 'MOCK reply', 'use ` + plantedSecret + ` MOCK reply') WHERE event_json LIKE '%MOCK reply%'`)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			t.Fatal("fixture text moved")
		}
		db.Close()
		sess, err := o.Session(context.Background(), "main", "")
		if err != nil {
			t.Fatal(err)
		}
		page, err := o.History(context.Background(), sess, HistoryQuery{Limit: 200, IncludeTools: true})
		sess.Close()
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for _, m := range page.Messages {
			all.Write(m)
		}
		if strings.Contains(all.String(), plantedSecret) == masked || strings.Contains(all.String(), "use sk-abc…1234 MOCK reply") != masked || page.Redacted != masked {
			t.Errorf("masked %v: redacted %v, %s", masked, page.Redacted, all.String())
		}
	}
}
