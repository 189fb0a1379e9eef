package searchindex

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/testutil"
)

// sqliteState copies the 2026.9.6 fixture's main store and returns its
// path and a connection that writes it as OpenClaw would.
func sqliteState(t *testing.T) (string, *sql.DB) {
	t.Helper()
	dir := t.TempDir()
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.9.6"), dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite")
	w, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return path, w
}

// eventSources opens the store afresh (as each invocation does) and names
// every session with events.
func eventSources(t *testing.T, path string, w *sql.DB) []search.Source {
	t.Helper()
	db, err := sqlitestore.Open(path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rows, err := w.Query(`SELECT DISTINCT session_id FROM transcript_events ORDER BY session_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var srcs []search.Source
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, search.Source{DB: db, SessionID: id})
	}
	return srcs
}

// TestEventsSources: the sessions of a 2026.8+ store, with new events
// appended (only those indexed) and earlier events changed (the session
// indexed whole), answer as the scan of their events does.
func TestEventsSources(t *testing.T) {
	path, w := sqliteState(t)
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	r := rand.New(rand.NewPCG(5, 6))
	srcs := eventSources(t, path, w)
	if len(srcs) == 0 {
		t.Fatal("the fixture has no events")
	}
	st, err := ix.Update(context.Background(), srcs)
	if err != nil || st.Whole != len(srcs) {
		t.Fatalf("first update: %v, %v", st, err)
	}
	checkQueries(t, r, ix, srcs, 40, nil)

	sid := srcs[0].SessionID
	for range 3 {
		if _, err := w.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, (SELECT max(seq) + 1 FROM transcript_events WHERE session_id = ?), ?, 1795255200000)`,
			sid, sid, randLine(r)); err != nil {
			t.Fatal(err)
		}
	}
	srcs = eventSources(t, path, w)
	if st, err = ix.Update(context.Background(), srcs); err != nil || st.Appended != 1 || st.Whole != 0 {
		t.Fatalf("after an append: %v, %v", st, err)
	}
	checkQueries(t, r, ix, srcs, 40, nil)
	if got, _ := indexHits(t, ix, srcs, search.Query{Pattern: "zqxappended"}, Filter{}, nil); len(got) != 0 {
		t.Fatalf("hits before the event: %v", got)
	}
	if _, err := w.Exec(`UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = (SELECT min(seq) FROM transcript_events WHERE session_id = ?)`,
		`{"type":"message","id":"rw","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"zqxappended rewritten"}}`, sid, sid); err != nil {
		t.Fatal(err)
	}
	srcs = eventSources(t, path, w)
	if st, err = ix.Update(context.Background(), srcs); err != nil || st.Whole != 1 {
		t.Fatalf("after a rewrite: %v, %v", st, err)
	}
	if got, _ := indexHits(t, ix, srcs, search.Query{Pattern: "zqxappended"}, Filter{}, nil); len(got) != 1 {
		t.Fatalf("rewritten event: %v", got)
	}
	checkQueries(t, r, ix, srcs, 40, nil)
}

// TestEventsOfOneSession: a store commit to one session (an append, then
// a rewrite of an earlier event) gets that session's events read again,
// not every session's of the store, and answers as the scan does.
func TestEventsOfOneSession(t *testing.T) {
	path, w := sqliteState(t)
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	r := rand.New(rand.NewPCG(7, 8))
	srcs := eventSources(t, path, w)
	if len(srcs) < 2 {
		t.Fatal("the fixture has fewer than two sessions with events")
	}
	var read []string
	var mu sync.Mutex // told from the readers, on every core
	testHookEventsRead = func(sid string) { mu.Lock(); read = append(read, sid); mu.Unlock() }
	defer func() { testHookEventsRead = nil }()
	if _, err := ix.Update(context.Background(), srcs); err != nil || len(read) != len(srcs) {
		t.Fatalf("first update: %d sessions read of %d, %v", len(read), len(srcs), err)
	}
	sid := srcs[len(srcs)-1].SessionID
	for _, stmt := range []string{
		`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?1, (SELECT max(seq) + 1 FROM transcript_events WHERE session_id = ?1), ?2, 1795255200000)`,
		`UPDATE transcript_events SET event_json = ?2 WHERE session_id = ?1 AND seq = (SELECT min(seq) FROM transcript_events WHERE session_id = ?1)`,
	} {
		if _, err := w.Exec(stmt, sid, `{"type":"message","id":"one","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"zqxonesession `+stmt[:6]+`"}}`); err != nil {
			t.Fatal(err)
		}
		read = nil
		srcs = eventSources(t, path, w)
		if _, err := ix.Update(context.Background(), srcs); err != nil || len(read) != 1 || read[0] != sid {
			t.Fatalf("after %.30s: sessions read %q, want only %s; %v", stmt, read, sid, err)
		}
		checkQueries(t, r, ix, srcs, 20, nil)
		if got, _ := indexHits(t, ix, srcs, search.Query{Pattern: "zqxonesession"}, Filter{}, nil); len(got) == 0 {
			t.Fatal("the new event is not found")
		}
	}
}
