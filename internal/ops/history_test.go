package ops

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
)

// walk reads sess's transcript newest page first, limit messages a page,
// following nextCursor, and returns the messages oldest first and the
// number of pages.
func walk(t *testing.T, o *Ops, sess *Session, limit int) ([]string, int) {
	t.Helper()
	var all []string
	before, pages := "", 0
	for {
		res, err := o.History(context.Background(), sess, HistoryQuery{Limit: limit, IncludeTools: true, Raw: true, Before: before})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		page := make([]string, len(res.Messages))
		for i, m := range res.Messages {
			page[i] = string(m)
		}
		all = append(page, all...)
		if res.HasMore != (res.NextCursor != "") || res.SessionKey != sess.Key {
			t.Fatalf("page %d: hasMore %v, nextCursor %q, key %q", pages, res.HasMore, res.NextCursor, res.SessionKey)
		}
		if !res.HasMore {
			return all, pages
		}
		if len(res.Messages) != limit {
			t.Fatalf("page %d: %d messages, more before", pages, len(res.Messages))
		}
		before = res.NextCursor
	}
}

// A transcript read page by page through the cursors is the whole of it,
// on both eras.
func TestHistoryPagesWalkBothEras(t *testing.T) {
	for _, fx := range readFixtures {
		t.Run(fx, func(t *testing.T) {
			o, _ := newTestOps(t, fixtureDir(t, fx), nil, nil)
			sess, err := o.Session(context.Background(), "main", "")
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			if sess.Key != "main" || sess.Agent != "main" || sess.SessionID == "" {
				t.Fatalf("session %+v", sess)
			}
			whole, pages := walk(t, o, sess, HistoryMaxLimit)
			if pages != 1 || len(whole) < 4 {
				t.Fatalf("whole transcript: %d messages in %d pages", len(whole), pages)
			}
			got, pages := walk(t, o, sess, 3)
			if !slices.Equal(got, whole) || pages != (len(whole)+2)/3 {
				t.Errorf("pages of 3: %d messages in %d pages, want the %d of the whole", len(got), pages, len(whole))
			}
			// Prepared (not raw): tool results left out, nothing bigger.
			res, err := o.History(context.Background(), sess, HistoryQuery{Limit: HistoryMaxLimit})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Messages) > len(whole) || res.Read > len(whole) || res.Bytes == 0 || res.Truncated {
				t.Errorf("prepared page: %d messages of %d read, %d bytes", len(res.Messages), res.Read, res.Bytes)
			}
		})
	}
}

// Over a gateway the window of chat.history is paged the same way.
func TestHistoryOverGateway(t *testing.T) {
	for _, proto := range []int{3, 4} {
		msgs := chatMessages(7)
		o, _, _ := startGateway(t, proto, gatewaytest.Data{
			Sessions: raws(`{"key":"agent:main:main","sessionId":"s1","updatedAt":1}`),
			History:  map[string][]json.RawMessage{"agent:main:main": msgs},
		})
		sess, err := o.Session(context.Background(), "agent:main:main", "")
		if err != nil {
			t.Fatal(err)
		}
		got, pages := walk(t, o, sess, 3)
		sess.Close()
		if pages != 3 || len(got) != 7 || got[0] != string(msgs[0]) || got[6] != string(msgs[6]) {
			t.Errorf("protocol %d: %d messages in %d pages: %v", proto, len(got), pages, got)
		}
	}
}

// A page's cursor is checked once, by the host that pages the transcript,
// before any lookup: a gateway's cursor on the local state dir, a cursor
// that is none (of either kind) over a gateway, each refused (exit 2)
// even when no session has that key.
func TestHistoryCursorChecks(t *testing.T) {
	ctx := context.Background()
	o, _ := newTestOps(t, fixtureDir(t, readFixtures[0]), nil, nil)
	for _, before := range []string{"gw1.eyJzIjoicyJ9", "not a cursor"} {
		if _, _, err := o.OpenHistory(ctx, "agent:main:nosuch", "", HistoryQuery{Limit: 5, Before: before}); apperr.CodeOf(err) != apperr.CodeUsage || !strings.Contains(err.Error(), "--before") {
			t.Errorf("locally, %q: %v", before, err)
		}
	}
	if err := CheckCursor("not a cursor"); apperr.CodeOf(err) != apperr.CodeUsage {
		t.Errorf("malformed cursor: %v", err)
	}
	for _, proto := range []int{3, 4} {
		g, _, _ := startGateway(t, proto, gatewaytest.Data{Sessions: raws(`{"key":"agent:main:main","sessionId":"s1","updatedAt":1}`)})
		for _, before := range []string{"gw1.!!", "gw1.eyJzIjoicyJ9", "not a cursor"} {
			if _, _, err := g.OpenHistory(ctx, "agent:main:nosuch", "", HistoryQuery{Limit: 5, Before: before}); apperr.CodeOf(err) != apperr.CodeUsage || !strings.Contains(err.Error(), "--before") {
				t.Errorf("protocol %d, %q: %v", proto, before, err)
			}
		}
	}
}

// Follow emits what is appended after the page, prepared like a page's
// messages (usage and cost gone) unless raw; without a page read first,
// what is appended from then on; for a requester, masked.
func TestFollowEmitsPreparedAppends(t *testing.T) {
	for _, c := range []struct{ raw, as bool }{{false, false}, {true, false}, {true, true}} {
		raw := c.raw
		dir := copyReadFixture(t, readFixtures[0])
		o, _ := newTestOps(t, dir, nil, func(cfg *Config) {
			if c.as {
				cfg.As = "agent:main:main"
			}
		})
		sess, err := o.Session(context.Background(), "main", "")
		if err != nil {
			t.Fatal(err)
		}
		if !raw {
			if _, err := o.History(context.Background(), sess, HistoryQuery{Limit: 2, Follow: true}); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan []json.RawMessage, 4)
		done := make(chan error, 1)
		go func() {
			done <- o.Follow(ctx, sess, FollowQuery{Raw: raw, Poll: 20 * time.Millisecond}, func(m []json.RawMessage) error {
				got <- m
				return nil
			})
		}()
		// Appended until one is seen: without a page read first, Follow
		// starts when it starts (lines before that are not news).
		line := `{"type":"message","id":"f0000001","parentId":null,"timestamp":"2026-11-21T05:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"appended sk-abcdefghijklmnop1234"}],"usage":{"input":1,"output":2},"timestamp":1795237200000}}` + "\n"
		path := filepath.Join(dir, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
		var m []json.RawMessage
		for deadline := time.Now().Add(5 * time.Second); m == nil; {
			if time.Now().After(deadline) {
				t.Fatalf("raw=%v: nothing emitted", raw)
			}
			fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			fh.WriteString(line)
			fh.Close()
			select {
			case m = <-got:
			case <-time.After(200 * time.Millisecond):
			}
		}
		if len(m) == 0 || !strings.Contains(string(m[0]), "appended") || strings.Contains(string(m[0]), `"usage"`) == !raw ||
			strings.Contains(string(m[0]), "sk-abcdefghijklmnop1234") == c.as || strings.Contains(string(m[0]), "sk-abc…1234") != c.as {
			t.Errorf("raw=%v as=%v: emitted %s", raw, c.as, m)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("follow ended with %v", err)
		}
		sess.Close()
	}
}

// On a 2026.8+ SQLite store a follow whose own handle of the database is
// left behind (here: closed under it) still emits what is appended, once:
// the events after its place are read again through a fresh handle when
// the store changed and nothing came through the follow's own.
func TestFollowCatchesUpOnSQLite(t *testing.T) {
	dir := copyReadFixture(t, "state-2026.9.6")
	o, _ := newTestOps(t, dir, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sess, _, err := o.OpenHistory(ctx, "main", "", HistoryQuery{Limit: 1, IncludeTools: true, Raw: true, Follow: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	s, err := o.OpenStateForTest()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SQLiteDB("main").Close(); err != nil { // the handle the follow starts with
		t.Fatal(err)
	}
	got := make(chan []json.RawMessage, 8)
	done := make(chan error, 1)
	go func() {
		done <- o.Follow(ctx, sess, FollowQuery{IncludeTools: true, Raw: true, Poll: 20 * time.Millisecond}, func(m []json.RawMessage) error {
			got <- m
			return nil
		})
	}()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, text := range []string{"caught up one", "caught up two"} {
		if _, err := db.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, (SELECT max(seq) + 1 FROM transcript_events WHERE session_id = ?), ?, 1795255200000)`,
			sess.SessionID, sess.SessionID, `{"type":"message","id":"cu00000`+string(rune('1'+i))+`","parentId":null,"timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"`+text+`"}],"timestamp":1795255200000}}`); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-got:
			if len(m) != 1 || !strings.Contains(string(m[0]), text) {
				t.Fatalf("emitted %s, want %q once", m, text)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%q never emitted", text)
		}
	}
	select {
	case m := <-got:
		t.Fatalf("emitted again: %s", m)
	case <-time.After(500 * time.Millisecond):
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("follow ended with %v", err)
	}
}
