package sqlitestore

import (
	"database/sql"
	"slices"
	"strings"
	"testing"
)

// The reads run once per session (Events, FTSRows: thousands in one search
// or index build) run their statements prepared once per connection from
// the second read on, and see what a writer committed in between as a
// fresh query does; a reopened connection prepares them again.
func TestPerSessionReadsArePreparedOnce(t *testing.T) {
	// Events' SQL path (the direct read, events_direct.go, prepares its
	// own check the same way).
	defer func(was bool) { directRead = was }(directRead)
	directRead = false
	dir := copyFixture(t)
	p := Path(dir, "main")
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	prepared := func() int {
		db.mu.Lock()
		defer db.mu.Unlock()
		n := 0
		for _, st := range db.stmts {
			if st != nil {
				n++
			}
		}
		return n
	}
	ftsRows := func() []FTSRow {
		var rows []FTSRow
		if err := db.FTSRows(mainSession, func() { rows = nil }, func(r FTSRow) { rows = append(rows, r) }); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	seqs, lines := eventsOf(t, db, mainSession)
	if n := prepared(); n != 0 {
		t.Fatalf("%d statements prepared after the first read: want its asked for, not yet prepared", n)
	}
	rows := ftsRows() // prepares Events' before its transaction
	if n := prepared(); n != 1 {
		t.Fatalf("%d statements prepared after the second read, want 1", n)
	}
	for range 2 {
		s2, l2 := eventsOf(t, db, mainSession)
		if !slices.Equal(s2, seqs) || !slices.Equal(l2, lines) {
			t.Fatal("Events differ when prepared")
		}
		if !slices.Equal(ftsRows(), rows) {
			t.Fatal("FTSRows differ when prepared")
		}
	}
	if n := prepared(); n != 2 {
		t.Fatalf("%d statements prepared, want 2 (Events' and FTSRows')", n)
	}

	// A writer's commit: the next reads (a reopened connection, as the
	// -wal now holds frames) see the event it added.
	w := rw(t, p)
	mustExec(t, w, `INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes)
		SELECT session_id, seq + 1000, event_json, created_at, event_utf8_bytes FROM transcript_events WHERE session_id = ? AND seq = ?`, mainSession, seqs[len(seqs)-1])
	w.Close()
	for range 2 {
		s3, _ := eventsOf(t, db, mainSession)
		if len(s3) != len(seqs)+1 || s3[len(s3)-1] != seqs[len(seqs)-1]+1000 {
			t.Fatalf("after a commit: seqs %v", s3)
		}
	}
	if n := prepared(); n != 1 {
		t.Fatalf("%d statements prepared after a reopen and two reads of events, want 1", n)
	}
}

// A query that cannot be prepared (a table this store lacks) runs as a
// plain query each time and says why each time; the other reads go on.
func TestUnpreparableQueryRunsPlain(t *testing.T) {
	db, err := Open(Path(copyFixture(t), "main"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const q = "SELECT x FROM no_such_table"
	for i := range 3 {
		err := db.read("test", func(tx *sql.Tx) error {
			rows, err := db.query(tx, q)
			if err == nil {
				rows.Close()
			}
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "no_such_table") {
			t.Fatalf("read %d: %v, want the missing table named", i, err)
		}
	}
	db.mu.Lock()
	st, asked := db.stmts[q]
	db.mu.Unlock()
	if !asked || st != nil {
		t.Fatalf("statement %v (asked %v): want it marked as not preparable", st, asked)
	}
	if seqs, _ := eventsOf(t, db, mainSession); len(seqs) == 0 {
		t.Fatal("no events read after an unpreparable query")
	}
}
