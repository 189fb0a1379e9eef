package sqlitestore

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/transcript"
)

// openclawSessions is what the real `openclaw sessions --json --all-agents`
// of 2026.9.6 printed for the fixture.
type openclawSessions struct {
	Sessions []struct {
		Key            string   `json:"key"`
		SessionID      string   `json:"sessionId"`
		AgentID        string   `json:"agentId"`
		UpdatedAt      float64  `json:"updatedAt"`
		Model          string   `json:"model"`
		ModelProvider  string   `json:"modelProvider"`
		InputTokens    *float64 `json:"inputTokens"`
		OutputTokens   *float64 `json:"outputTokens"`
		TotalTokens    *float64 `json:"totalTokens"`
		ContextTokens  *float64 `json:"contextTokens"`
		AbortedLastRun *bool    `json:"abortedLastRun"`
	} `json:"sessions"`
}

func loadOpenClaw(t *testing.T) openclawSessions {
	t.Helper()
	b, err := os.ReadFile(fixture + ".openclaw-sessions.json")
	if err != nil {
		t.Fatal(err)
	}
	var oc openclawSessions
	if err := json.Unmarshal(b, &oc); err != nil {
		t.Fatal(err)
	}
	return oc
}

// TestStoreMatchesOpenClaw: Store() over both agents of the real 2026.9.6
// state gives exactly the keys and sessionIds (and the fields OpenClaw prints
// from the entry) that the real `openclaw sessions --json --all-agents`
// printed, and leaves every file byte-identical (no -wal/-shm created).
func TestStoreMatchesOpenClaw(t *testing.T) {
	dir := copyFixture(t)
	before := snapshot(t, dir)
	oc := loadOpenClaw(t)

	type got struct {
		sessionID, agent string
		updated          float64
		model, provider  string
		in, out, total   *float64
		ctx              *float64
		aborted          *bool
	}
	gotByKey := map[string]got{}
	for _, agent := range []string{"main", "ops"} {
		var warns []string
		db, err := Open(Path(dir, agent), Options{Warn: func(m string) { warns = append(warns, m) }})
		if err != nil {
			t.Fatal(err)
		}
		if db.mode != modeImmutable {
			t.Errorf("%s: a quiescent WAL database should be read immutable, got %s", agent, db.mode)
		}
		st, err := db.Store()
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if st.Skipped != 0 || len(warns) != 0 {
			t.Errorf("%s: skipped=%d warns=%q", agent, st.Skipped, warns)
		}
		if st.Path != Path(dir, agent) || st.Dir != filepath.Dir(st.Path) {
			t.Errorf("path=%s dir=%s", st.Path, st.Dir)
		}
		for _, e := range st.Entries {
			if _, ok := st.Lookup(e.Key); !ok {
				t.Errorf("Lookup(%s) failed", e.Key)
			}
			var raw map[string]any
			if err := json.Unmarshal(e.Raw, &raw); err != nil || raw["sessionId"] != e.SessionID {
				t.Errorf("%s: Raw is not the entry: %v", e.Key, err)
			}
			if e.SessionFile != "" {
				t.Errorf("%s: sessionFile should be cleared", e.Key)
			}
			gotByKey[e.Key] = got{e.SessionID, agent, *e.UpdatedAt, e.Model, e.ModelProvider,
				e.InputTokens, e.OutputTokens, e.TotalTokens, e.ContextTokens, e.AbortedLastRun}
		}
	}
	var wantKeys []string
	for _, s := range oc.Sessions {
		wantKeys = append(wantKeys, s.Key)
		g, ok := gotByKey[s.Key]
		if !ok {
			t.Errorf("key %s missing", s.Key)
			continue
		}
		if g.sessionID != s.SessionID || g.agent != s.AgentID || g.updated != s.UpdatedAt {
			t.Errorf("%s: got %s/%s/%v, openclaw %s/%s/%v", s.Key, g.sessionID, g.agent, g.updated, s.SessionID, s.AgentID, s.UpdatedAt)
		}
		if g.model != s.Model || g.provider != s.ModelProvider || !eqf(g.in, s.InputTokens) || !eqf(g.out, s.OutputTokens) ||
			!eqf(g.total, s.TotalTokens) || !eqf(g.ctx, s.ContextTokens) || g.aborted == nil || s.AbortedLastRun == nil || *g.aborted != *s.AbortedLastRun {
			t.Errorf("%s: fields differ from openclaw: %+v", s.Key, g)
		}
	}
	slices.Sort(wantKeys)
	if gk := sortedKeys(gotByKey); !slices.Equal(gk, wantKeys) {
		t.Errorf("keys = %v, openclaw %v", gk, wantKeys)
	}
	assertUnchanged(t, dir, before)
}

func eqf(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// jsonlOf writes the events as a JSONL transcript, for the reference reader.
func jsonlOf(t *testing.T, lines []string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var optionCases = []transcript.Options{
	{}, {IncludeTools: true}, {Limit: 1}, {Limit: 2}, {Limit: 3, IncludeTools: true},
	{Limit: 4}, {Limit: 5, IncludeTools: true}, {Limit: 50}, {Limit: 1000, IncludeTools: true},
}

// compareWithJSONL checks Messages against transcript.ReadMessages over the
// same events written as a JSONL file, for every option case.
func compareWithJSONL(t *testing.T, db *DB, sessionID string, lines []string) {
	t.Helper()
	ref := jsonlOf(t, lines)
	for _, o := range optionCases {
		want, err := transcript.ReadMessages(ref, o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.Messages(sessionID, o)
		if err != nil {
			t.Fatalf("%s %+v: %v", sessionID, o, err)
		}
		if !sameMessages(got.Messages, want.Messages) {
			t.Errorf("%s %+v: %d messages, JSONL reader %d\n got %s\nwant %s", sessionID, o, len(got.Messages), len(want.Messages), got.Messages, want.Messages)
		}
		if (got.Header == nil) != (want.Header == nil) || got.Header != nil && *got.Header != *want.Header {
			t.Errorf("%s: header %+v, JSONL reader %+v", sessionID, got.Header, want.Header)
		}
	}
}

func sameMessages(a, b []json.RawMessage) bool {
	return slices.EqualFunc(a, b, func(x, y json.RawMessage) bool { return string(x) == string(y) })
}

// TestMessagesLikeJSONL: every transcript of the fixture reads exactly as
// the JSONL reader reads the same lines, for Limit/IncludeTools cases; the
// files stay byte-identical.
func TestMessagesLikeJSONL(t *testing.T) {
	dir := copyFixture(t)
	ref := copyFixture(t)
	before := snapshot(t, dir)
	oc := loadOpenClaw(t)
	for _, s := range oc.Sessions {
		db, err := Open(Path(dir, s.AgentID), Options{})
		if err != nil {
			t.Fatal(err)
		}
		seqs, lines := rawEvents(t, Path(ref, s.AgentID), s.SessionID)
		if len(lines) == 0 {
			t.Fatalf("%s: no events in the fixture", s.Key)
		}
		compareWithJSONL(t, db, s.SessionID, lines)
		if s.AgentID == "ops" {
			// The real fixture stores one event (the read tool's result) as zstd.
			found := false
			for _, l := range lines {
				found = found || strings.Contains(l, `"role":"toolResult"`) && len(l) >= 1024
			}
			if !found {
				t.Error("ops: expected the large toolResult event")
			}
		}
		res, err := db.Messages(s.SessionID, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Header == nil || res.Header.ID != s.SessionID || res.Header.Type != "session" {
			t.Errorf("%s: header %+v", s.Key, res.Header)
		}
		if res.Size != seqs[len(seqs)-1]+1 || res.Skipped != 0 {
			t.Errorf("%s: size=%d skipped=%d, last seq %d", s.Key, res.Size, res.Skipped, seqs[len(seqs)-1])
		}
		db.Close()
	}
	assertUnchanged(t, dir, before)
}

// TestMessagesMainSession pins the main session's transcript: two turns, an
// exec tool call with its result.
func TestMessagesMainSession(t *testing.T) {
	dir := copyFixture(t)
	db, err := Open(Path(dir, "main"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const id = "8000a7c0-cc69-4a7f-82ba-219f4a789783"
	roles := func(o transcript.Options) []string {
		res, err := db.Messages(id, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range res.Messages {
			var v struct{ Role string }
			json.Unmarshal(m, &v)
			out = append(out, v.Role)
		}
		return out
	}
	if got := roles(transcript.Options{}); !slices.Equal(got, []string{"user", "assistant", "user", "assistant", "assistant"}) {
		t.Errorf("roles = %v", got)
	}
	if got := roles(transcript.Options{IncludeTools: true}); !slices.Equal(got, []string{"user", "assistant", "user", "assistant", "toolResult", "assistant"}) {
		t.Errorf("roles with tools = %v", got)
	}
	if got := roles(transcript.Options{Limit: 2}); !slices.Equal(got, []string{"assistant", "assistant"}) {
		t.Errorf("limit 2 = %v", got)
	}
	if got := roles(transcript.Options{Limit: 2, IncludeTools: true}); !slices.Equal(got, []string{"toolResult", "assistant"}) {
		t.Errorf("limit 2 with tools = %v", got)
	}
	// The follow cursor: nothing new since Size; from seq 8 on, the toolCall
	// turn's assistant (8), its result (9) and the final reply (11).
	res, _ := db.Messages(id, transcript.Options{})
	next, err := db.MessagesSince(id, res.Size, transcript.Options{})
	if err != nil || len(next.Messages) != 0 || next.Size != res.Size || next.Header == nil {
		t.Errorf("since Size: %v %+v", err, next)
	}
	tail, err := db.MessagesSince(id, 8, transcript.Options{IncludeTools: true})
	if err != nil || len(tail.Messages) != 3 || tail.Size != 13 {
		t.Errorf("since 8: %v %d messages size %d", err, len(tail.Messages), tail.Size)
	}
	// Unknown session: fs.ErrNotExist, like a missing JSONL file.
	if _, err := db.Messages("00000000-0000-0000-0000-000000000000", transcript.Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unknown session: %v", err)
	}
	if _, err := db.Messages("../x", transcript.Options{}); err == nil {
		t.Error("a path-like session id must be refused")
	}
}

// TestOpenErrors: missing, empty, not SQLite, truncated, and a SQLite file
// that is not an agent database are all exit 10; nothing is created.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(Path(fixture, "main"))
	if err != nil {
		t.Fatal(err)
	}
	state, err := os.ReadFile(filepath.Join(fixture, "state", "openclaw.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"empty.sqlite":     {},
		"text.sqlite":      []byte("not a database at all, just text\n"),
		"header.sqlite":    append([]byte(sqliteMagic), make([]byte, 4096)...),
		"truncated.sqlite": good[:8*4096],
		"halfpage.sqlite":  good[:1000],
		"state.sqlite":     state,
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, dir)
	for _, name := range append(sortedKeys(files), "missing.sqlite") {
		t.Run(name, func(t *testing.T) {
			db, err := Open(filepath.Join(dir, name), Options{})
			if err == nil {
				// Corruption may only show when the pages are read.
				_, err = db.Store()
				if err == nil {
					_, err = db.Messages("8000a7c0-cc69-4a7f-82ba-219f4a789783", transcript.Options{})
				}
				db.Close()
			}
			if code := apperr.CodeOf(err); code != apperr.CodeState {
				t.Fatalf("exit %d, want 10: %v", code, err)
			}
			if name == "missing.sqlite" && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("missing file should wrap fs.ErrNotExist: %v", err)
			}
			t.Log(err)
		})
	}
	assertUnchanged(t, dir, before)
}

// TestInvalidRows: rows OpenClaw's listing drops are dropped (counted,
// warned once); internal-effects rows are hidden silently.
func TestInvalidRows(t *testing.T) {
	dir := copyFixture(t)
	p := Path(dir, "main")
	w := rw(t, p)
	mustExec(t, w, `UPDATE session_nodes SET entry_json = '{"bad":1}' WHERE session_key = 'agent:main:cron:peer-job-1'`)
	mustExec(t, w, `UPDATE session_nodes SET entry_json = json_set(entry_json, '$.updatedAt', 5) WHERE session_key = 'agent:main:hook:github:push-42'`)
	mustExec(t, w, `UPDATE session_nodes SET entry_json = 'not json' WHERE session_key = 'agent:main:telegram:group:-100123'`)
	mustExec(t, w, `INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at)
		SELECT 'agent:main:internal-session-effects:run-1', current_session_id, entry_json, updated_at FROM session_nodes WHERE session_key = 'agent:main:main'`)
	w.Close()
	var warns []string
	db, err := Open(p, Options{Warn: func(m string) { warns = append(warns, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := db.Store()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Entries) != 1 || st.Entries[0].Key != "agent:main:main" || st.Skipped != 3 {
		t.Errorf("entries=%d skipped=%d", len(st.Entries), st.Skipped)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "and 2 more") {
		t.Errorf("warns = %q", warns)
	}
}

func TestIsInternalKey(t *testing.T) {
	for key, want := range map[string]bool{
		"agent:main:internal-session-effects:run-abc":  true,
		"agent:ops:internal-session-effects:x":         true,
		"agent:main:main":                              false,
		"agent:main:x:internal-session-effects:y":      false,
		"internal-session-effects:x":                   false,
		"agent:main:internal-session-effectsX":         false,
		"agent:main:telegram:group:internal-session-e": false,
	} {
		if IsInternalKey(key) != want {
			t.Errorf("IsInternalKey(%q) != %v", key, want)
		}
	}
}

// TestEntriesOwnTheirBytes: each entry's Raw is its own memory (Store keeps
// the driver's per-row copy instead of copying again), valid after Close.
func TestEntriesOwnTheirBytes(t *testing.T) {
	dir := copyFixture(t)
	db, err := Open(Path(dir, "main"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := db.Store()
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	runtime.GC()
	seen := map[*byte]bool{}
	for _, e := range st.Entries {
		p := unsafe.SliceData(e.Raw)
		if seen[p] {
			t.Fatalf("%s shares its bytes with another entry", e.Key)
		}
		seen[p] = true
		var v struct{ SessionID string }
		if err := json.Unmarshal(e.Raw, &v); err != nil || v.SessionID != e.SessionID {
			t.Fatalf("%s: Raw changed after Close: %v", e.Key, err)
		}
	}
}

// TestStoreKeyOrder: Store reads the rows in table order (not through the
// key index) and returns them in session_key order all the same, bytewise
// as SQLite's BINARY collation; the warning names the first bad row in key
// order, not in table order.
func TestStoreKeyOrder(t *testing.T) {
	dir := copyFixture(t)
	p := Path(dir, "main")
	w := rw(t, p)
	// Rows inserted after the fixture's, keys that sort before and between
	// them ("Z" < "a" bytewise, unlike a case-folding order).
	for _, k := range []string{"agent:main:zz", "agent:main:Zebra", "agent:main:a", "agent:main:bb"} {
		mustExec(t, w, `INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at)
			SELECT ?, current_session_id, entry_json, updated_at FROM session_nodes WHERE session_key = 'agent:main:main'`, k)
	}
	mustExec(t, w, `UPDATE session_nodes SET entry_json = '{"bad":1}' WHERE session_key IN ('agent:main:zz', 'agent:main:bb')`)
	w.Close()
	var warns []string
	db, err := Open(p, Options{Warn: func(m string) { warns = append(warns, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := db.Store()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range st.Entries {
		keys = append(keys, e.Key)
	}
	if !slices.IsSorted(keys) || len(keys) != 6 || keys[0] != "agent:main:Zebra" || keys[1] != "agent:main:a" {
		t.Errorf("keys = %q", keys)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], `"agent:main:bb" (and 1 more)`) {
		t.Errorf("warns = %q", warns)
	}
}
