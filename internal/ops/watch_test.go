package ops

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
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
