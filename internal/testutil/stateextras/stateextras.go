// Package stateextras adds to copies of the fixture states what they lack
// and real hosts have (archived copies, orphans, an agent without a store,
// a 2026.8+ key's earlier window, events without a window): the states the
// coverage of search and usage and the metrics readings are tested on.
package stateextras

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the fixture's SQLite store, written as OpenClaw's cascade would not
)

// JSON adds to a 2026.1.30 state: a reset copy of main's transcript, a
// deleted copy of a session no entry has (a sessionId with a space, which
// search once skipped), a header naming the orphan (the Signal DM's), an
// orphan attributed to main, and an agent without a store holding a
// transcript and an archived copy.
func JSON(t *testing.T, dir string) {
	t.Helper()
	sd := filepath.Join(dir, "agents", "main", "sessions")
	main := filepath.Join(sd, "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	b, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	msg := `{"type":"message","id":"e1e1e1e1","parentId":null,"timestamp":"2026-11-21T05:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"MOCK earlier"}],"provider":"mock","model":"mock-1","usage":{"input":5,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":6,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1795237201000}}` + "\n"
	files := map[string]string{
		filepath.Join(sd, "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl.reset.2026-11-21T05-00-00.000Z"):                                  string(b),
		filepath.Join(sd, "odd id.jsonl.deleted.2026-11-21T05-10-00.000Z"):                                                              `{"type":"session","version":3,"id":"odd id","timestamp":"2026-11-21T05:00:00.000Z","cwd":"/"}` + "\n" + msg,
		filepath.Join(sd, "0e0e0e0e-0000-4000-8000-000000000001.jsonl"):                                                                 `{"type":"session","version":3,"id":"0e0e0e0e-0000-4000-8000-000000000001","timestamp":"2026-11-21T04:00:00.000Z","cwd":"/"}` + "\n" + msg,
		filepath.Join(dir, "agents", "solo", "sessions", "5010a000-0000-4000-8000-000000000001.jsonl"):                                  `{"type":"session","version":3,"id":"5010a000-0000-4000-8000-000000000001","timestamp":"2026-11-21T04:00:00.000Z","cwd":"/"}` + "\n" + msg,
		filepath.Join(dir, "agents", "solo", "sessions", "5010a000-0000-4000-8000-000000000002.jsonl.deleted.2026-11-21T05-10-00.000Z"): `{"type":"session","version":3,"id":"5010a000-0000-4000-8000-000000000002","timestamp":"2026-11-21T04:00:00.000Z","cwd":"/"}` + "\n" + msg,
	}
	// main's transcript names the new orphan as its parent: main's earlier one
	_, rest, _ := strings.Cut(string(b), "\n")
	files[main] = `{"type":"session","version":3,"id":"c040fd20-0a1c-4ce0-924c-6e695a32eecb","timestamp":"2026-11-21T04:43:35.128Z","cwd":"/home/claw/.openclaw/workspace","parentSession":"/home/claw/.openclaw/agents/main/sessions/0e0e0e0e-0000-4000-8000-000000000001.jsonl"}` + "\n" + rest
	for p, body := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// SQLite adds to a 2026.9 state: a window of agent:main:main before its
// current one, and events of a sessionId no window holds (written with the
// store's foreign keys off, as OpenClaw's cascade would not leave them).
func SQLite(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const cols = `seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json`
	for _, q := range []string{
		`INSERT INTO session_windows (session_id, session_key, reason, created_at, updated_at) VALUES ('0bd00000-0000-4000-8000-000000000001', 'agent:main:main', 'initial', 1, 1)`,
		`INSERT INTO transcript_events (session_id, ` + cols + `) SELECT '0bd00000-0000-4000-8000-000000000001', ` + cols + ` FROM transcript_events WHERE session_id = '8000a7c0-cc69-4a7f-82ba-219f4a789783'`,
		`INSERT INTO transcript_events (session_id, ` + cols + `) SELECT 'ffff0000-0000-4000-8000-000000000002', ` + cols + ` FROM transcript_events WHERE session_id = '8000a7c0-cc69-4a7f-82ba-219f4a789783'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}
