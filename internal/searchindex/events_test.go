package searchindex

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

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

// appendEvent appends event ?2 to session ?1, as its next seq.
const appendEvent = `INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?1, (SELECT max(seq) + 1 FROM transcript_events WHERE session_id = ?1), ?2, 1795255200000)`

// eventJSON is a user message event of id saying text.
func eventJSON(id, text string) string {
	return `{"type":"message","id":"` + id + `","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"` + text + `"}}`
}

// storeIndex is a copy of the 2026.9.6 fixture's store (sqliteState) and
// an empty index, closed at the test's end.
func storeIndex(t *testing.T) (string, *sql.DB, *Index) {
	t.Helper()
	path, w := sqliteState(t)
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return path, w, ix
}

// readLog is the sessions whose events the updates read (told from the
// readers, on every core), from logReads on.
type readLog struct {
	mu   sync.Mutex
	sids []string
}

func logReads(t *testing.T) *readLog {
	l := &readLog{}
	testHookEventsRead = func(sid string) { l.mu.Lock(); l.sids = append(l.sids, sid); l.mu.Unlock() }
	t.Cleanup(func() { testHookEventsRead = nil })
	return l
}

// take is the sessions read since the last take, sorted.
func (l *readLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.sids
	l.sids = nil
	slices.Sort(out)
	return out
}

// TestEventsSources: the sessions of a 2026.8+ store, with new events
// appended (only those indexed) and earlier events changed (the session
// indexed whole), answer as the scan of their events does.
func TestEventsSources(t *testing.T) {
	path, w, ix := storeIndex(t)
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
		if _, err := w.Exec(appendEvent, sid, randLine(r)); err != nil {
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
	asOpenClaw(t, w, sid, editFirst, eventJSON("rw", "zqxappended rewritten"))
	srcs = eventSources(t, path, w)
	if st, err = ix.Update(context.Background(), srcs); err != nil || st.Whole != 1 {
		t.Fatalf("after a rewrite: %v, %v", st, err)
	}
	if got, _ := indexHits(t, ix, srcs, search.Query{Pattern: "zqxappended"}, Filter{}, nil); len(got) != 1 {
		t.Fatalf("rewritten event: %v", got)
	}
	checkQueries(t, r, ix, srcs, 40, nil)
}

// editFirst sets the first event of session ?1 to ?2, in place.
const editFirst = `UPDATE transcript_events SET event_json = ?2 WHERE session_id = ?1 AND seq = (SELECT min(seq) FROM transcript_events WHERE session_id = ?1)`

// asOpenClaw runs stmt (?1: the session, ?2: arg) as OpenClaw makes a
// destructive change to session sid's transcript: in one transaction with
// its generation rotated (rotateTranscriptGenerationInTransaction) and
// its mutation clock advanced (touchTranscriptMutationInTransaction).
func asOpenClaw(t *testing.T, w *sql.DB, sid, stmt string, arg any) {
	t.Helper()
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range []string{stmt,
		`INSERT INTO transcript_rewrite_watermarks (session_id, generation, updated_at) VALUES (?1, lower(hex(randomblob(16))), 1795255200000)
			ON CONFLICT (session_id) DO UPDATE SET generation = excluded.generation, updated_at = excluded.updated_at`,
		`UPDATE session_windows SET transcript_updated_at = max(1795255200000, coalesce(transcript_updated_at, -1) + 1) WHERE session_id = ?1`,
	} {
		if _, err := tx.Exec(q, sid, arg); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestEventsOfOneSession: a store commit to one session (an append, then
// a rewrite of an earlier event as OpenClaw makes it) gets that session's
// events read again, not every session's of the store, and answers as
// the scan does.
func TestEventsOfOneSession(t *testing.T) {
	path, w, ix := storeIndex(t)
	r := rand.New(rand.NewPCG(7, 8))
	srcs := eventSources(t, path, w)
	if len(srcs) < 2 {
		t.Fatal("the fixture has fewer than two sessions with events")
	}
	reads := logReads(t)
	if _, err := ix.Update(context.Background(), srcs); err != nil || len(reads.take()) != len(srcs) {
		t.Fatalf("first update: not every one of %d sessions read, %v", len(srcs), err)
	}
	sid := srcs[len(srcs)-1].SessionID
	for _, stmt := range []string{appendEvent, editFirst} {
		ev := eventJSON("one", "zqxonesession "+stmt[:6])
		if stmt == appendEvent {
			// a bare insert: no clock, seen by its rowid
			if _, err := w.Exec(stmt, sid, ev); err != nil {
				t.Fatal(err)
			}
		} else {
			asOpenClaw(t, w, sid, stmt, ev)
		}
		srcs = eventSources(t, path, w)
		_, err := ix.Update(context.Background(), srcs)
		if read := reads.take(); err != nil || len(read) != 1 || read[0] != sid {
			t.Fatalf("after %.30s: sessions read %q, want only %s; %v", stmt, read, sid, err)
		}
		checkQueries(t, r, ix, srcs, 20, nil)
		if got, _ := indexHits(t, ix, srcs, search.Query{Pattern: "zqxonesession"}, Filter{}, nil); len(got) == 0 {
			t.Fatal("the new event is not found")
		}
	}
}

// TestStoreCommits: what each kind of commit to a 2026.8+ store gets read
// by the next update — the sessions it changed, told by the rows added
// since the store's record and by OpenClaw's mark of an edit in place
// (a rotated generation);
// none for a commit to another table; every one when rows were deleted
// at the end of the events table (rowids may come again) — and the
// answers are the scan's after each.
func TestStoreCommits(t *testing.T) {
	path, w, ix := storeIndex(t)
	r := rand.New(rand.NewPCG(9, 10))
	srcs := eventSources(t, path, w)
	if len(srcs) < 3 {
		t.Fatal("the fixture has fewer than three sessions with events")
	}
	reads := logReads(t)
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	reads.take()
	a, b := srcs[0].SessionID, srcs[1].SessionID
	ev := func(word string) string { return eventJSON(word, word) }
	exec := func(q string, args ...any) {
		if _, err := w.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		commit func()
		want   []string // the sessions read (nil: every one)
		found  string
	}{
		{"appends to two sessions, no clock", func() { exec(appendEvent, a, ev("zqxtwoa")); exec(appendEvent, b, ev("zqxtwob")) }, []string{a, b}, "zqxtwoa"},
		{"an entry's update only", func() { exec(`UPDATE session_nodes SET updated_at = updated_at + 1`) }, []string{}, ""},
		{"an edit in place, its generation rotated", func() {
			asOpenClaw(t, w, b, editFirst, ev("zqxinplace"))
		}, []string{b}, "zqxinplace"},
		{"the last event deleted, its generation rotated", func() {
			asOpenClaw(t, w, a, `DELETE FROM transcript_events WHERE session_id = ?1 AND seq = (SELECT max(seq) FROM transcript_events WHERE session_id = ?1) AND ?2 IS NOT NULL`, 1)
		}, []string{a}, ""},
		{"the table's last row deleted, no clock", func() {
			exec(`DELETE FROM transcript_events WHERE rowid = (SELECT max(rowid) FROM transcript_events)`)
		}, nil, ""},
	} {
		c.commit()
		srcs = eventSources(t, path, w)
		if _, err := ix.Update(context.Background(), srcs); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		read := reads.take()
		want := c.want
		if want == nil {
			for _, s := range srcs {
				want = append(want, s.SessionID)
			}
		}
		want = slices.Clone(want)
		slices.Sort(want)
		if !slices.Equal(read, want) {
			t.Errorf("%s: sessions read %q, want %q", c.name, read, want)
		}
		checkQueries(t, r, ix, srcs, 20, nil)
		if c.found != "" {
			if got, _ := indexHits(t, ix, srcs, search.Query{Pattern: c.found}, Filter{}, nil); len(got) == 0 {
				t.Errorf("%s: %s is not found", c.name, c.found)
			}
		}
		// and the index is current: an update with nothing new reads none
		_, err := ix.Update(context.Background(), srcs)
		if read := reads.take(); err != nil || len(read) != 0 {
			t.Errorf("%s: a second update read %q, %v", c.name, read, err)
		}
	}
}

// TestStoreRecordNotMovedOnWhenTheStoreChangedWhileAsked: the store's
// record holds a stamp and the highest rowid seen at it, and the sessions
// an update found unchanged by their own stamp (one an interrupted update
// read) are not asked about; so when a commit lands between the stamp the
// update took (Backlog's) and its question to the store, the record stays
// where it was, and the next update asks from there.
func TestStoreRecordNotMovedOnWhenTheStoreChangedWhileAsked(t *testing.T) {
	path, w, ix := storeIndex(t)
	srcs := eventSources(t, path, w)
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	before := *ix.man.store(path)
	if _, err := w.Exec(appendEvent, srcs[0].SessionID, eventJSON("zqxfirst", "zqxfirst")); err != nil {
		t.Fatal(err)
	}
	srcs = eventSources(t, path, w)
	bl, err := ix.Backlog(srcs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(appendEvent, srcs[1].SessionID, eventJSON("zqxwhileasked", "zqxwhileasked")); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.UpdateStamped(context.Background(), srcs, bl.Stamps); err != nil {
		t.Fatal(err)
	}
	if got := *ix.man.store(path); got != before {
		t.Fatalf("the store's record moved on to %+v though the store changed while asked (was %+v)", got, before)
	}
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	if got := *ix.man.store(path); got == before {
		t.Fatal("the store's record did not move on once the store was still")
	}
	for _, word := range []string{"zqxfirst", "zqxwhileasked"} {
		if got, _ := indexHits(t, ix, srcs, search.Query{Pattern: word}, Filter{}, nil); len(got) != 1 {
			t.Errorf("%s: %v", word, got)
		}
	}
	checkQueries(t, rand.New(rand.NewPCG(11, 12)), ix, srcs, 20, nil)
}

// TestStoreReplacedByAnotherFile: a store put in place of another (a
// restore, a copy renamed over it) has rowids of another history, so its
// record's rowid says nothing of it: every session is read.
func TestStoreReplacedByAnotherFile(t *testing.T) {
	path, w, ix := storeIndex(t)
	srcs := eventSources(t, path, w)
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	w.Close()
	tmp := path + ".new"
	c, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(`VACUUM INTO ?`, tmp); err != nil {
		t.Fatal(err)
	}
	c.Close()
	n, err := sql.Open("sqlite", "file:"+tmp)
	if err != nil {
		t.Fatal(err)
	}
	// the same rows, one edited in place: no rowid above the record's,
	// the same generation
	if _, err := n.Exec(editFirst, srcs[0].SessionID, eventJSON("rp", "zqxreplaced")); err != nil {
		t.Fatal(err)
	}
	n.Close()
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	w2, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	srcs = eventSources(t, path, w2)
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	if got, _ := indexHits(t, ix, srcs, search.Query{Pattern: "zqxreplaced"}, Filter{}, nil); len(got) != 1 {
		t.Fatalf("the replaced store's edit: %v", got)
	}
	checkQueries(t, rand.New(rand.NewPCG(13, 14)), ix, srcs, 20, nil)
}

// TestEventsReadAgain: a session's events read again (the store's file
// changed under an immutable read: sqlitestore reads it anew, calling
// reset) are indexed once, not once per reading: what the first reading
// copied out is dropped.
func TestEventsReadAgain(t *testing.T) {
	path, w, ix := storeIndex(t)
	srcs := eventSources(t, path, w)
	once := sync.Once{}
	testHookEventsRead = func(string) {
		once.Do(func() {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(path, later, later); err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(func() { testHookEventsRead = nil })
	if st, err := ix.Update(context.Background(), srcs); err != nil || st.Whole != len(srcs) {
		t.Fatalf("update: %v, %v", st, err)
	}
	testHookEventsRead = nil
	fresh, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if _, err := fresh.Update(context.Background(), eventSources(t, path, w)); err != nil {
		t.Fatal(err)
	}
	got, err := ix.liveMessages()
	if err != nil {
		t.Fatal(err)
	}
	want, err := fresh.liveMessages()
	if err != nil || got != want || want == 0 {
		t.Fatalf("%d messages indexed with a session read twice, %d read once (%v)", got, want, err)
	}
	checkQueries(t, rand.New(rand.NewPCG(3, 4)), ix, srcs, 30, nil)
}
