package sessionwrite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/sqlitewrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/testutil"
)

func TestPlainJSONString(t *testing.T) {
	for s, want := range map[string]bool{"abc <&> ü": true, `a"b`: false, `a\b`: false, "a\u2028": false, "a\n": false} {
		if plainJSONString(s) != want {
			t.Errorf("plainJSONString(%q) != %v", s, want)
		}
	}
}

func openState(t *testing.T, fixture string) *state.State {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", fixture), dir); err != nil {
		t.Fatal(err)
	}
	s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Home: t.TempDir()}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// The SQLite era end to end through the interface: locate, the context of
// a turn, an appended turn with its entry update (once, whatever the
// retries), a mirror, a patch, a child and its archiving; nothing but the
// database is written.
func TestSQLiteWrites(t *testing.T) {
	s := openState(t, "state-2026.9.6")
	w, err := Open(s, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if !w.Route().Direct("sqlite") {
		t.Fatalf("route %+v", w.Route())
	}
	const key = "agent:main:main"
	l, err := w.Locate(key)
	if err != nil {
		t.Fatal(err)
	}
	if l.Path != "" || l.Entry.SessionID == "" {
		t.Fatalf("located %+v", l)
	}
	before, err := w.History(context.Background(), l, nil)
	if err != nil || len(before) == 0 {
		t.Fatalf("history: %d, %v", len(before), err)
	}
	user := json.RawMessage(`{"role":"user","content":[{"type":"text","text":"ping"}],"timestamp":1}`)
	asst := json.RawMessage(`{"role":"assistant","content":[{"type":"text","text":"pong"}],"timestamp":2}`)
	update := func(e *jsonx.Object) { _ = e.Set("model", "m-test") }
	for i := 0; i < 2; i++ { // a retried step is appended once
		if err := w.Append(context.Background(), l, "test:step:0", "/tmp", update, user, asst); err != nil {
			t.Fatal(err)
		}
	}
	after, err := w.History(context.Background(), l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before)+2 || !strings.Contains(string(after[len(after)-1]), "pong") {
		t.Fatalf("history after the turn: %d messages (was %d)", len(after), len(before))
	}
	// a regeneration OpenClaw-style: a new reply branched off our user
	// event; the next turn's context follows the new leaf, "pong" is out
	db, err := sql.Open("sqlite", "file:"+sqlitewrite.Path(s.Dir.Path, "main")+"?mode=rw&_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	var userID string
	var seq int64
	if err := db.QueryRow(`SELECT event_id, (SELECT max(seq) + 1 FROM transcript_events WHERE session_id = ?) FROM transcript_event_identities
		WHERE session_id = ? AND message_idempotency_key = 'test:step:0'`, l.Entry.SessionID, l.Entry.SessionID).Scan(&userID, &seq); err != nil {
		t.Fatal(err)
	}
	regen := fmt.Sprintf(`{"type":"message","id":"regen-1","parentId":%q,"timestamp":"2026-11-23T12:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"pong again"}],"timestamp":3}}`, userID)
	if _, err := db.Exec(`INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?, ?, ?, 0)`, l.Entry.SessionID, seq, regen); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO transcript_event_identities(session_id, event_id, seq, event_type, parent_id, created_at) VALUES (?, 'regen-1', ?, 'message', ?, 0)`, l.Entry.SessionID, seq, userID); err != nil {
		t.Fatal(err)
	}
	db.Close()
	branched, err := w.History(context.Background(), l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(branched) != len(after) || !strings.Contains(string(branched[len(branched)-1]), "pong again") || strings.Contains(string(branched[len(branched)-2]), "pong") {
		t.Fatalf("context after a regeneration: %d messages (%d before), last %s", len(branched), len(after), branched[len(branched)-1])
	}
	l2, _ := w.Locate(key)
	if l2.Entry.Model != "m-test" {
		t.Errorf("entry model %q after the turn", l2.Entry.Model)
	}
	if err := w.UpdateEntry(context.Background(), "agent:main:gone", update); err != nil {
		t.Errorf("update of a gone key: %v", err)
	}
	lbl := "wired"
	pr, err := w.Patch(context.Background(), key, Patch{Label: &lbl, SessionID: "not-this-one", NotFound: errNotFound})
	if err != errNotFound || pr != nil {
		t.Errorf("patch of a moved-on session: %v", err)
	}
	if _, err := w.Patch(context.Background(), key, Patch{Label: &lbl, SessionID: l.Entry.SessionID}); err != nil {
		t.Fatal(err)
	}
	c, err := w.CreateChild(context.Background(), Child{Key: "agent:main:subagent:00000000-0000-4000-8000-000000000001", ParentKey: key, RequesterAgent: "main",
		Label: "kid", RequesterKeys: []string{key},
		Build: func(st *store.Store, req *store.Entry) (*jsonx.Object, error) {
			if req == nil || req.Key != key {
				t.Errorf("requester %+v", req)
			}
			e := jsonx.NewObject()
			_ = e.Set("sessionId", "ignored")
			_ = e.Set("thinkingLevel", "low")
			return e, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(c.Entry), `"thinkingLevel":"low"`) || strings.Contains(string(c.Entry), "ignored") {
		t.Errorf("child entry %s", c.Entry)
	}
	r, err := w.RemoveChild(context.Background(), "agent:main:subagent:00000000-0000-4000-8000-000000000001")
	if err != nil || !r.Existed || !r.Archived || len(r.Renamed) != 0 {
		t.Fatalf("remove child: %+v %v", r, err)
	}
	var legacy []string
	filepath.WalkDir(s.Dir.Path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && (d.Name() == "sessions.json" || strings.HasSuffix(d.Name(), ".jsonl")) {
			legacy = append(legacy, p)
		}
		return nil
	})
	if len(legacy) > 0 {
		t.Errorf("legacy files written: %v", legacy)
	}
}

var errNotFound = apperr.NotFoundf("gone")

// A live OpenClaw holding the state dir: Open refuses (exit 10) naming it.
func TestSQLiteHeld(t *testing.T) {
	s := openState(t, "state-2026.9.6")
	dir := sqlitewrite.LockDir(s.Dir.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"pid":%d,"createdAt":"2026-11-23T00:00:00.000Z","configPath":"/x/openclaw.json","role":"gateway"}`, os.Getpid())
	if err := os.WriteFile(filepath.Join(dir, "gateway.state.lock"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(s, "main", Options{})
	if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(err.Error(), "--gateway") {
		t.Fatalf("Open beside a live gateway: %v", err)
	}
}

// The JSON era behind the same interface: a patch and an appended turn land
// in sessions.json and the JSONL transcript.
func TestJSONWrites(t *testing.T) {
	s := openState(t, "state-2026.1.30")
	w, err := Open(s, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !w.Route().Direct("json") {
		t.Fatalf("route %+v", w.Route())
	}
	lbl := "json-label"
	pr, err := w.Patch(context.Background(), "agent:main:main", Patch{Label: &lbl})
	if err != nil || !strings.Contains(string(pr.Entry), `"label":"json-label"`) || filepath.Base(pr.Path) != "sessions.json" {
		t.Fatalf("patch: %+v %v", pr, err)
	}
	l, err := w.Locate("agent:main:main")
	if err != nil || !strings.HasSuffix(l.Path, ".jsonl") {
		t.Fatalf("locate: %+v %v", l, err)
	}
	n0, _ := w.History(context.Background(), l, nil)
	if err := w.Append(context.Background(), l, "k", "/tmp", func(e *jsonx.Object) { _ = e.Set("model", "m-json") },
		json.RawMessage(`{"role":"user","content":"hi","timestamp":1}`), json.RawMessage(`{"role":"assistant","content":[{"type":"text","text":"yo"}],"timestamp":2}`)); err != nil {
		t.Fatal(err)
	}
	n1, _ := w.History(context.Background(), l, nil)
	l2, _ := w.Locate("agent:main:main")
	if len(n1) != len(n0)+2 || l2.Entry.Model != "m-json" || l2.Entry.Label != "json-label" {
		t.Errorf("after the turn: %d messages (was %d), model %q, label %q", len(n1), len(n0), l2.Entry.Model, l2.Entry.Label)
	}
}

// Labels: 2026.9.6's rule on the SQLite era (JavaScript trim, 512 UTF-16
// units), 2026.1.30's 64 otherwise, the loosest before the era is known.
func TestParseLabelEras(t *testing.T) {
	long := strings.Repeat("é", 100)
	if l, err := ParseLabel("sqlite", "\ufeff\u00a0"+long+"\u2028"); err != nil || l != long {
		t.Fatalf("sqlite: %q %v", l, err)
	}
	if l, err := ParseLabel("sqlite", "\u0085x"); err != nil || l != "\u0085x" {
		t.Fatalf("U+0085 is not JavaScript whitespace: %q %v", l, err)
	}
	if _, err := ParseLabel("sqlite", strings.Repeat("😀", 257)); apperr.CodeOf(err) != apperr.CodeUsage {
		t.Fatalf("514 UTF-16 units accepted: %v", err)
	}
	if _, err := ParseLabel("json", long); apperr.CodeOf(err) != apperr.CodeUsage || !strings.Contains(err.Error(), "max 64") {
		t.Fatalf("json: %v", err)
	}
	if _, err := ParseLabel("", long); err != nil {
		t.Fatalf("the loosest rule refused: %v", err)
	}
	if _, err := ParseLabel("json", " \ufeff "); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("blank: %v", err)
	}
}
