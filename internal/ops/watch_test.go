package ops

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/runs"
)

// feed is a running Watch whose events a test reads in order.
type feed struct {
	t      *testing.T
	ch     chan WatchEvent
	cancel context.CancelFunc
	done   chan error
}

// startWatch runs o.Watch until the test ends and waits for it to be
// ready: what the test writes afterwards must show up.
func startWatch(t *testing.T, o *Ops, q WatchQuery) *feed {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &feed{t: t, ch: make(chan WatchEvent, 1000), cancel: cancel, done: make(chan error, 1)}
	ready := make(chan struct{})
	go func() {
		f.done <- o.Watch(ctx, q, func() { close(ready) }, func(ev WatchEvent) error {
			f.ch <- ev
			return nil
		})
	}()
	select {
	case <-ready:
	case err := <-f.done:
		t.Fatalf("watch ended before it was ready: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-f.done; err != nil {
			t.Errorf("watch: %v", err)
		}
	})
	return f
}

// next returns the next event that match accepts, failing the test if
// none comes (the bound only keeps a broken feed from hanging the run).
func (f *feed) next(what string, match func(WatchEvent) bool) WatchEvent {
	f.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev := <-f.ch:
			if match(ev) {
				return ev
			}
		case err := <-f.done:
			f.t.Fatalf("watch ended waiting for %s: %v", what, err)
		case <-deadline:
			f.t.Fatalf("no %s event", what)
		}
	}
}

// editStore rewrites a sessions.json as OpenClaw does (a whole new file
// renamed over the old one), after edit changed its entries.
func editStore(t *testing.T, path string, edit func(m map[string]map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

func TestWatchJSON(t *testing.T) {
	o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{})
	sessions := filepath.Join(dir, "agents", "main", "sessions")
	storePath := filepath.Join(sessions, "sessions.json")
	f := startWatch(t, o, WatchQuery{Messages: true})

	// updated: the fields that changed, and the row now.
	editStore(t, storePath, func(m map[string]map[string]any) {
		m["agent:main:main"]["totalTokens"] = 12345
		m["agent:main:main"]["label"] = "renamed"
	})
	ev := f.next("updated", func(ev WatchEvent) bool { return ev.Kind == EventUpdated })
	if ev.Key != "main" || ev.AgentID != "main" || !slices.Equal(ev.Fields, []string{"label", "totalTokens"}) {
		t.Fatalf("updated: %+v", ev)
	}
	if ev.Session == nil || ev.Session.Label != "renamed" || *ev.Session.TotalTokens != 12345 || ev.Session.TranscriptPath == "" {
		t.Fatalf("updated row: %+v", ev.Session)
	}

	// message: appended to the main session's transcript.
	tp := ev.Session.TranscriptPath
	appendLine(t, tp, `{"type":"message","id":"w1","parentId":null,"timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Hello\nfrom the feed"}],"timestamp":1795255200000}}`)
	ev = f.next("message", func(ev WatchEvent) bool { return ev.Kind == EventMessage })
	if ev.Key != "main" || ev.Message == nil || *ev.Message != (WatchMessage{Role: "assistant", ID: "w1", Text: "Hello from the feed"}) {
		t.Fatalf("message: %+v %+v", ev, ev.Message)
	}

	// added, with its transcript's messages; removed.
	sid := "11111111-2222-4333-8444-555555555555"
	appendLine(t, filepath.Join(sessions, sid+".jsonl"), `{"type":"session","version":3,"id":"`+sid+`","timestamp":"2026-11-22T10:00:00.000Z","cwd":"/"}`)
	appendLine(t, filepath.Join(sessions, sid+".jsonl"), `{"type":"message","id":"n1","parentId":null,"timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"hi there","timestamp":1795255200000}}`)
	editStore(t, storePath, func(m map[string]map[string]any) {
		m["agent:main:dashboard:new"] = map[string]any{"sessionId": sid, "updatedAt": 1795255200000}
		delete(m, "agent:main:hook:github:push-42")
	})
	ev = f.next("added", func(ev WatchEvent) bool { return ev.Kind == EventAdded })
	if ev.Key != "agent:main:dashboard:new" || ev.Session == nil || ev.Session.SessionID != sid {
		t.Fatalf("added: %+v", ev)
	}
	ev = f.next("removed", func(ev WatchEvent) bool { return ev.Kind == EventRemoved })
	if ev.Key != "agent:main:hook:github:push-42" || ev.Session != nil {
		t.Fatalf("removed: %+v", ev)
	}
	ev = f.next("message of the new session", func(ev WatchEvent) bool { return ev.Kind == EventMessage })
	if ev.Key != "agent:main:dashboard:new" || ev.Message.Text != "hi there" || ev.Message.Role != "user" {
		t.Fatalf("message: %+v %+v", ev, ev.Message)
	}
}

// The SQLite era (OpenClaw 2026.8+): a row changed, a message event
// stored, a session added and one removed, each by another process's
// commit (here a second connection writing the copy).
func TestWatchSQLite(t *testing.T) {
	o, dir := fixtureOps(t, "state-2026.9.6", nil, Config{})
	f := startWatch(t, o, WatchQuery{Messages: true})
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	exec(`UPDATE session_nodes SET entry_json = json_set(entry_json, '$.label', 'renamed', '$.totalTokens', 4242), label = 'renamed' WHERE session_key = 'agent:main:main'`)
	ev := f.next("updated", func(ev WatchEvent) bool { return ev.Kind == EventUpdated })
	if ev.Key != "main" || !slices.Equal(ev.Fields, []string{"label", "totalTokens"}) || ev.Session == nil || ev.Session.Label != "renamed" {
		t.Fatalf("updated: %+v", ev)
	}

	sid := ev.Session.SessionID

	// As OpenClaw writes an entry: updatedAt moved (column and JSON), the
	// entry marked valid again (the index of stamps finds it).
	exec(`UPDATE session_nodes SET entry_valid = 1`)
	exec(`UPDATE session_nodes SET entry_json = json_set(entry_json, '$.model', 'gpt-next', '$.updatedAt', 1900000000000), updated_at = 1900000000000 WHERE session_key = 'agent:main:cron:peer-job-1'`)
	exec(`UPDATE session_nodes SET entry_valid = 1 WHERE session_key = 'agent:main:cron:peer-job-1'`)
	ev = f.next("updated as OpenClaw writes", func(ev WatchEvent) bool { return ev.Kind == EventUpdated })
	if ev.Key != "agent:main:cron:peer-job-1" || !slices.Equal(ev.Fields, []string{"updatedAt", "model"}) || ev.Session.Model != "gpt-next" {
		t.Fatalf("updated: %+v %v", ev, ev.Fields)
	}

	exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, (SELECT max(seq) + 1 FROM transcript_events WHERE session_id = ?), ?, 1795255200000)`,
		sid, sid, `{"type":"message","id":"s1","parentId":null,"timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"From SQLite"}],"timestamp":1795255200000}}`)
	ev = f.next("message", func(ev WatchEvent) bool { return ev.Kind == EventMessage })
	if ev.Key != "main" || ev.Message == nil || *ev.Message != (WatchMessage{Role: "assistant", ID: "s1", Text: "From SQLite"}) {
		t.Fatalf("message: %+v %+v", ev, ev.Message)
	}

	newSID := "11111111-2222-4333-8444-555555555555"
	exec(`INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at) VALUES ('agent:main:dashboard:new', ?, ?, 1795255200000)`,
		newSID, `{"sessionId":"`+newSID+`","updatedAt":1795255200000}`)
	exec(`DELETE FROM session_nodes WHERE session_key = 'agent:main:hook:github:push-42'`)
	ev = f.next("added", func(ev WatchEvent) bool { return ev.Kind == EventAdded })
	if ev.Key != "agent:main:dashboard:new" || ev.Session == nil || ev.Session.SessionID != newSID {
		t.Fatalf("added: %+v", ev)
	}
	ev = f.next("removed", func(ev WatchEvent) bool { return ev.Kind == EventRemoved })
	if ev.Key != "agent:main:hook:github:push-42" {
		t.Fatalf("removed: %+v", ev)
	}
}

// Over a gateway: 2026.9.x says sessions.changed to a sessions.subscribe
// subscriber; 2026.1.30 says nothing for a patch, so its keepalive tick
// (or a run's lifecycle event) has the sessions listed again; a chat final
// is a message event on both.
func TestWatchGateway(t *testing.T) {
	row := func(key, sid string, updated, tokens int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"key":%q,"kind":"direct","sessionId":%q,"updatedAt":%d,"totalTokens":%d}`, key, sid, updated, tokens))
	}
	for _, proto := range []int{3, 4} {
		t.Run(fmt.Sprint("protocol-", proto), func(t *testing.T) {
			o, s := gatewayOps(t, proto)
			s.SetSessions([]json.RawMessage{
				row("agent:main:main", "11111111-1111-4111-8111-111111111111", 1795446000000, 100),
				row("agent:main:old", "22222222-2222-4222-8222-222222222222", 1795445000000, 50),
			})
			f := startWatch(t, o, WatchQuery{Messages: true})
			nudge := func() { // what 2026.1.30 sends later anyway: its 30 s tick
				if proto < 4 {
					s.Emit("tick", map[string]any{"ts": 1795446189848})
				}
			}

			s.SetSessions([]json.RawMessage{
				row("agent:main:main", "11111111-1111-4111-8111-111111111111", 1795446001000, 150),
				row("agent:main:old", "22222222-2222-4222-8222-222222222222", 1795445000000, 50),
			})
			nudge()
			ev := f.next("updated", func(ev WatchEvent) bool { return ev.Kind == EventUpdated })
			if ev.Key != "agent:main:main" || !slices.Equal(ev.Fields, []string{"updatedAt", "totalTokens"}) || *ev.Session.TotalTokens != 150 {
				t.Fatalf("updated: %+v", ev)
			}

			s.SetSessions([]json.RawMessage{
				row("agent:main:new", "33333333-3333-4333-8333-333333333333", 1795446002000, 1),
				row("agent:main:main", "11111111-1111-4111-8111-111111111111", 1795446001000, 150),
			})
			s.Emit("agent", map[string]any{"runId": "r1", "stream": "lifecycle", "sessionKey": "agent:main:new", "data": map[string]any{"phase": "end"}})
			ev = f.next("added", func(ev WatchEvent) bool { return ev.Kind == EventAdded })
			if ev.Key != "agent:main:new" || ev.Session.SessionID != "33333333-3333-4333-8333-333333333333" {
				t.Fatalf("added: %+v", ev)
			}
			ev = f.next("removed", func(ev WatchEvent) bool { return ev.Kind == EventRemoved })
			if ev.Key != "agent:main:old" {
				t.Fatalf("removed: %+v", ev)
			}

			s.Emit("chat", map[string]any{"runId": "r2", "sessionKey": "agent:main:main", "seq": 2, "state": "final",
				"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Over the gateway"}}, "timestamp": 1795446003000}})
			ev = f.next("message", func(ev WatchEvent) bool { return ev.Kind == EventMessage })
			if ev.Key != "agent:main:main" || ev.Message == nil || ev.Message.Role != "assistant" || ev.Message.Text != "Over the gateway" {
				t.Fatalf("message: %+v %+v", ev, ev.Message)
			}
		})
	}
}

// Our runs: a new run and each status it goes through, on both eras.
func TestWatchRuns(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			o, dir := fixtureOps(t, fx, nil, Config{})
			f := startWatch(t, o, WatchQuery{Runs: true})
			rs := runs.Open(dir)
			r := &runs.Record{RunID: runs.NewID(), Kind: runs.KindSend, Status: "running", CreatedAt: 1795446000000,
				Target: runs.Session{Key: "agent:main:main", DisplayKey: "main", AgentID: "main"}}
			for _, status := range []string{"running", "done"} {
				r.Status = status
				if err := rs.Save(r); err != nil {
					t.Fatal(err)
				}
				ev := f.next("run "+status, func(ev WatchEvent) bool { return ev.Kind == EventRun })
				if ev.Key != "main" || ev.AgentID != "main" || ev.Run == nil || *ev.Run != (WatchRun{ID: r.RunID, Status: status, Kind: runs.KindSend}) {
					t.Fatalf("run: %+v %+v", ev, ev.Run)
				}
			}
		})
	}
}
