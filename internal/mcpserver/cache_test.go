package mcpserver_test

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/ops"
)

// 16 calls at once on a server whose stores are cached (the files quiet
// long enough to be trusted) get the answers one call at a time gets —
// filters, masking and sorting work on what the calls share without
// changing it (run with -race) — and a write by OpenClaw between two bursts
// shows in every call of the second.
func TestConcurrentCallsOnCachedStores(t *testing.T) {
	eras := []struct {
		fixture string
		write   func(t *testing.T, dir string)
		changed string // in the sessions_list answer after the write
	}{
		{fixtures[0], func(t *testing.T, dir string) {
			p := filepath.Join(dir, "agents", "main", "sessions", "sessions.json")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data = bytes.Replace(data, []byte(`"label": "build-stats"`), []byte(`"label": "build-STATS"`), 1)
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}, `"label":"build-STATS"`},
		{fixtures[1], func(t *testing.T, dir string) {
			db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`UPDATE session_nodes SET entry_json = json_set(entry_json, '$.model', 'mock-7') WHERE session_key = 'agent:main:cron:peer-job-1'`); err != nil {
				t.Fatal(err)
			}
		}, `"model":"mock-7"`},
	}
	states := make([]*state, len(eras))
	for i, e := range eras {
		states[i] = newState(t, e.fixture)
	}
	time.Sleep(2100 * time.Millisecond) // the copies quiet: their stores are trusted
	for i, e := range eras {
		t.Run(e.fixture, func(t *testing.T) {
			s := states[i]
			cache := ops.NewStoreCache()
			cs := connectMemory(t, s.server(false, func(c *ops.Config) { c.Cache = cache }), nil)
			calls := []toolCall{
				{"sessions_list", map[string]any{"allAgents": true}},
				{"sessions_list", map[string]any{"limit": 2}},
				{"sessions_list", map[string]any{"kinds": []string{"cron", "other"}, "allAgents": true}},
				{"sessions_list", map[string]any{"messageLimit": 3}},
				{"sessions_history", map[string]any{"sessionKey": "main", "limit": 5}},
				{"sessions_show", map[string]any{"sessionKey": "main"}},
			}
			for _, txt := range burst(t, cs, calls) {
				if strings.Contains(txt, e.changed) {
					t.Fatalf("%s before the write", e.changed)
				}
			}
			if cache.Stats().Hits == 0 {
				t.Fatalf("no call was served from the cache: %+v", cache.Stats())
			}
			e.write(t, s.dir)
			for i, txt := range burst(t, cs, calls) {
				if i%len(calls) == 0 && !strings.Contains(txt, e.changed) {
					t.Errorf("call %d after the write does not show it: %.200s", i, txt)
				}
			}
		})
	}
}
