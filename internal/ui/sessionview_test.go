package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/state"
)

const mainTranscript = "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl"

// openSession opens the session key in a session view and reads its newest
// page; the follow it starts is left running (the view's cancel stops it).
func openSession(t *testing.T, env Env, r state.Row) *SessionView {
	t.Helper()
	v := NewSessionView(env, r)
	t.Cleanup(func() {
		if v.cancel != nil {
			v.cancel()
		}
	})
	sh := v.readShow()()
	v.Update(sh)
	msg := v.readNewest()()
	if m, ok := msg.(pageMsg); !ok || m.err != nil {
		t.Fatalf("newest page: %#v", msg)
	}
	v.Update(msg)
	return v
}

// nextFollow waits (a generous deadline) for the follow's next message
// that satisfies ok, feeding each to the view.
func nextFollow(t *testing.T, v *SessionView, ok func(followMsg) bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case m := <-v.follow:
			v.Update(m)
			if fm, is := m.(followMsg); is && ok(fm) {
				return
			}
		case <-deadline:
			t.Fatal("the followed message never came")
		}
	}
}

func appendLine(t *testing.T, path string, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

func messageLine(id, role string, content any) map[string]any {
	return map[string]any{"type": "message", "id": id, "parentId": nil, "timestamp": "2026-11-26T12:00:00.000Z",
		"message": map[string]any{"role": role, "content": content, "timestamp": fixedNow.UnixMilli()}}
}

func TestSessionViewTranscript(t *testing.T) {
	env, dir := testEnv(t, "state-2026.1.30")
	v := openSession(t, env, state.Row{Key: "main", AgentID: "main", Kind: "main"})
	frame := plain(v.Render(100, 40))
	for _, want := range []string{"agent main", "era json", "messages 17", "transcript · 17 messages · following",
		"▸ tool call write {\"path\":\"notes/todo.md\"", "▸ tool result (read): - ship peer tests", "MOCK: tool read returned 18 chars"} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q:\n%s", want, frame)
		}
	}
	// newest at the bottom
	lines := strings.Split(strings.TrimRight(frame, "\n"), "\n")
	if !strings.Contains(lines[len(lines)-1], "MOCK: tool read returned 18 chars") {
		t.Fatalf("last line %q", lines[len(lines)-1])
	}
	// t expands tool calls and results
	v.Update(press("t"))
	frame = plain(v.Render(100, 40))
	if !strings.Contains(frame, "▾ tool call write") || !strings.Contains(frame, `"path": "notes/todo.md"`) || !strings.Contains(frame, "▾ tool result (read)") {
		t.Fatalf("expanded:\n%s", frame)
	}
	v.Update(press("t"))

	// thinking is hidden until T
	tp := filepath.Join(dir, mainTranscript)
	appendLine(t, tp, messageLine("th000001", "assistant", []map[string]any{
		{"type": "thinking", "thinking": "weighing the options quietly"}, {"type": "text", "text": "the considered answer"}}))
	nextFollow(t, v, func(m followMsg) bool { return len(m.msgs) > 0 })
	frame = plain(v.Render(100, 40))
	if !strings.Contains(frame, "the considered answer") || strings.Contains(frame, "weighing the options") {
		t.Fatalf("thinking not hidden:\n%s", frame)
	}
	v.Update(press("T"))
	if frame = plain(v.Render(100, 40)); !strings.Contains(frame, "∴ weighing the options quietly") {
		t.Fatalf("thinking not shown:\n%s", frame)
	}
	v.Update(press("T"))

	// / searches; n/N move between matches
	v.Update(press("/"))
	if !v.Capturing() {
		t.Fatal("search does not capture keys")
	}
	typeText(v, "MOCK")
	v.Update(press("enter"))
	if v.Capturing() || len(v.matches) < 3 {
		t.Fatalf("matches %v", v.matches)
	}
	first := v.match
	v.Update(press("N"))
	if v.match != first-1 && !(first == 0 && v.match == len(v.matches)-1) {
		t.Fatalf("N: %d → %d", first, v.match)
	}
	v.Update(press("n"))
	if v.match != first {
		t.Fatalf("n: back to %d, at %d", first, v.match)
	}
	if !strings.Contains(plain(v.Render(100, 40)), fmt.Sprintf("search \"MOCK\": %d matches", len(v.matches))) {
		t.Fatal("no search line")
	}
	// esc clears the search, the next esc leaves
	_, cmd := v.Update(press("esc"))
	if v.query != "" || cmd != nil {
		t.Fatal("esc did not clear the search first")
	}
	_, cmd = v.Update(press("esc"))
	if msgs := msgsOf(t, cmd); len(msgs) != 1 || msgs[0] != (PopMsg{}) {
		t.Fatalf("esc: %v", msgs)
	}
}

// Follow mode: appended messages appear at the bottom, also across a
// reset (the key's new transcript).
func TestSessionViewFollowAcrossReset(t *testing.T) {
	env, dir := testEnv(t, "state-2026.1.30")
	v := openSession(t, env, state.Row{Key: "main", AgentID: "main", Kind: "main"})
	appendLine(t, filepath.Join(dir, mainTranscript), messageLine("ap000001", "user", "a writer's line"))
	nextFollow(t, v, func(m followMsg) bool { return len(m.msgs) > 0 })
	if frame := plain(v.Render(100, 30)); !strings.HasSuffix(strings.TrimRight(frame, "\n "), "a writer's line") {
		t.Fatalf("appended message not at the bottom:\n%s", frame)
	}
	if _, err := env.Ops().Reset(context.Background(), ops.ResetRequest{Key: "main"}); err != nil {
		t.Fatal(err)
	}
	sh, err := env.Ops().Show(context.Background(), ops.ShowQuery{Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	np := sh.Session.Transcript.Path
	if np == "" || strings.HasSuffix(np, "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl") {
		t.Fatalf("new transcript %q", np)
	}
	if _, err := os.Stat(np); err != nil {
		appendLine(t, np, map[string]any{"type": "session", "version": 3, "id": sh.Session.SessionID, "timestamp": "2026-11-26T12:00:00.000Z", "cwd": "/tmp"})
	}
	appendLine(t, np, messageLine("nw000001", "user", "after the reset"))
	nextFollow(t, v, func(m followMsg) bool {
		for _, raw := range m.msgs {
			if strings.Contains(string(raw), "after the reset") {
				return true
			}
		}
		return false
	})
	frame := plain(v.Render(100, 30))
	if !strings.Contains(frame, "after the reset") || !strings.Contains(frame, "a writer's line") {
		t.Fatalf("frame:\n%s", frame)
	}
}

// Scrolling up past the oldest message read pages in the older ones
// through the history cursor.
func TestSessionViewOlderPages(t *testing.T) {
	env, dir := testEnv(t, "state-2026.1.30")
	tp := filepath.Join(dir, mainTranscript)
	for i := range 120 {
		appendLine(t, tp, messageLine(fmt.Sprintf("pg%06d", i), "user", fmt.Sprintf("numbered message %03d", i)))
	}
	v := openSession(t, env, state.Row{Key: "main", AgentID: "main", Kind: "main"})
	if len(v.msgs) != pageSize || !v.hasOlder {
		t.Fatalf("first page: %d messages, older %v", len(v.msgs), v.hasOlder)
	}
	frame := plain(v.Render(100, 30))
	if !strings.Contains(frame, "numbered message 119") || strings.Contains(frame, "numbered message 070") {
		t.Fatalf("first frame:\n%s", frame)
	}
	for range 3 {
		_, cmd := v.Update(press("home"))
		var got bool
		for _, m := range msgsOf(t, cmd) {
			if pm, ok := m.(pageMsg); ok {
				if pm.err != nil {
					t.Fatal(pm.err)
				}
				v.Update(pm)
				got = true
			}
		}
		v.Render(100, 30)
		if !got {
			break
		}
	}
	if v.hasOlder || countMessages(v.msgs) != 137 {
		t.Fatalf("after paging: %d messages, older %v", countMessages(v.msgs), v.hasOlder)
	}
	frame = plain(v.Render(100, 30))
	if !strings.Contains(frame, "user  ") || v.autoTail {
		t.Fatalf("top frame (following %v):\n%s", v.autoTail, frame)
	}
	// End goes back to the newest and follows again
	v.Update(press("end"))
	if frame = plain(v.Render(100, 30)); !strings.Contains(frame, "numbered message 119") || !v.autoTail {
		t.Fatalf("end:\n%s", frame)
	}
}

func TestSessionViewSQLite(t *testing.T) {
	env, _ := testEnv(t, "state-2026.9.6")
	sv := loadedSessions(t, env, SessionsOptions{AllAgents: true})
	var r *state.Row
	for i := range sv.list.rows {
		if sv.list.rows[i].Kind == "main" {
			r = &sv.list.rows[i]
		}
	}
	if r == nil {
		t.Fatal("no main session in the SQLite fixture")
	}
	v := openSession(t, env, *r)
	frame := plain(v.Render(120, 40))
	if !strings.Contains(frame, "era sqlite") || !strings.Contains(frame, "transcript · ") || countMessages(v.msgs) == 0 {
		t.Fatalf("frame:\n%s", frame)
	}
}
