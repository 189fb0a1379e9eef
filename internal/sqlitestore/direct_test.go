package sqlitestore

import (
	"database/sql"
	"fmt"
	"maps"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/store"
)

// storeBoth reads p's sessions with the direct read and through SQLite
// only, and returns both with their warnings; direct says whether the
// direct read did the first. It also holds StoreMeta, by either path, equal
// to Store without Raw.
func storeBoth(t *testing.T, p string) (fast, slow *store.Store, fastWarn, slowWarn []string, direct bool) {
	t.Helper()
	read := func(on, lean bool) (*store.Store, []string, bool) {
		defer func(was bool) { directRead = was }(directRead)
		directRead = on
		var warns []string
		db, err := Open(p, Options{Warn: func(m string) { warns = append(warns, m) }})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		read := db.Store
		if lean {
			read = db.StoreMeta
		}
		st, err := read()
		if err != nil {
			t.Fatal(err)
		}
		return st, warns, db.directReads > 0
	}
	fast, fastWarn, direct = read(true, false)
	slow, slowWarn, _ = read(false, false)
	slowMeta := store.FromEntries(slow.Path, slices.Clone(slow.Entries), slow.Skipped)
	for i := range slowMeta.Entries {
		slowMeta.Entries[i].Raw = nil
	}
	entryRawMatches(t, p, slow)
	for _, on := range []bool{true, false} {
		lean, warns, d := read(on, true)
		if d != (on && direct) {
			t.Fatalf("StoreMeta (direct read %v): direct read used: %v", on, d)
		}
		sameStore(t, fmt.Sprintf("StoreMeta (direct read %v)", on), lean, slowMeta, warns, slowWarn)
	}
	return
}

// entryRawMatches: EntryRaw, the single-row read beside StoreMeta, gives
// every kept entry's Raw byte for byte, and nothing (ok false) for a key
// Store left out or that does not exist.
func entryRawMatches(t *testing.T, p string, full *store.Store) {
	t.Helper()
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	kept := map[string]bool{}
	for _, e := range full.Entries {
		kept[e.Key] = true
		raw, ok, err := db.EntryRaw(e.Key)
		if err != nil || !ok || string(raw) != string(e.Raw) {
			t.Fatalf("EntryRaw(%q) = %d bytes, %v, %v; Store's Raw is %d bytes", e.Key, len(raw), ok, err, len(e.Raw))
		}
	}
	keys := []string{"agent:main:no-such-session"}
	if err := db.read("keys", func(tx *sql.Tx) error {
		rows, err := tx.Query("SELECT session_key FROM session_nodes")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				return err
			}
			keys = append(keys, k)
		}
		return rows.Err()
	}); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if kept[k] {
			continue
		}
		if raw, ok, err := db.EntryRaw(k); err != nil || ok || raw != nil {
			t.Fatalf("EntryRaw(%q) of a row Store leaves out = %q, %v, %v", k, raw, ok, err)
		}
	}
}

func sameStore(t *testing.T, what string, fast, slow *store.Store, fw, sw []string) {
	t.Helper()
	if len(fast.Entries) != len(slow.Entries) || fast.Skipped != slow.Skipped || fast.Path != slow.Path {
		t.Fatalf("%s: direct %d entries (%d skipped), SQL %d (%d)", what, len(fast.Entries), fast.Skipped, len(slow.Entries), slow.Skipped)
	}
	for i := range fast.Entries {
		if !reflect.DeepEqual(fast.Entries[i], slow.Entries[i]) {
			t.Fatalf("%s: entry %d differs:\ndirect %+v\nSQL    %+v", what, i, fast.Entries[i].Meta, slow.Entries[i].Meta)
		}
	}
	if !reflect.DeepEqual(fw, sw) {
		t.Fatalf("%s: warnings differ:\ndirect %q\nSQL    %q", what, fw, sw)
	}
}

// TestDirectMatchesSQL: Store's direct read of session_nodes returns what
// the SQL path returns — entries (key, Raw byte for byte, Meta), order,
// skipped rows and their warning — on the real 2026.9.6 database as it is,
// with rows OpenClaw's listing drops or hides, with entries large enough
// for overflow chains, with rows deleted, and with every change still in
// a live writer's -wal; and it is the direct read that did it.
func TestDirectMatchesSQL(t *testing.T) {
	cases := []struct {
		name  string
		prep  []string
		live  bool // keep the writer open: the changes stay in the -wal
		wantN int
	}{
		{name: "fixture", wantN: 4},
		{name: "dropped and hidden rows", wantN: 2, prep: []string{
			`UPDATE session_nodes SET entry_json = '{"bad":1}' WHERE session_key = 'agent:main:cron:peer-job-1'`,
			`UPDATE session_nodes SET entry_json = 'not json' WHERE session_key = 'agent:main:telegram:group:-100123'`,
			`INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at)
				SELECT 'agent:main:internal-session-effects:run-1', current_session_id, entry_json, updated_at FROM session_nodes WHERE session_key = 'agent:main:main'`,
			`INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, entry_valid)
				SELECT 'agent:main:deleted', current_session_id, '{}', updated_at, -1 FROM session_nodes WHERE session_key = 'agent:main:main'`,
		}},
		{name: "large entries, deleted rows", wantN: 4 + 300 - 100, prep: bigRows()},
		{name: "live -wal", live: true, wantN: 4 + 300 - 100, prep: bigRows()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, p := preparedFixture(t, c.prep, c.live)
			before := snapshot(t, dir)
			fast, slow, fw, sw, direct := storeBoth(t, p)
			if !direct {
				t.Fatal("the direct read was not used")
			}
			sameStore(t, c.name, fast, slow, fw, sw)
			if len(fast.Entries) != c.wantN {
				t.Errorf("%d entries, want %d", len(fast.Entries), c.wantN)
			}
			if !c.live {
				assertUnchanged(t, dir, before)
			}
		})
	}
}

// preparedFixture is a copy of the fixture state (dir) with prep run on
// its main agent's database (p). live keeps the writer open until the test
// ends, its changes in the -wal (no checkpoint).
func preparedFixture(t *testing.T, prep []string, live bool) (dir, p string) {
	t.Helper()
	dir = copyFixture(t)
	p = Path(dir, "main")
	if len(prep) == 0 {
		return dir, p
	}
	var w *sql.DB
	if live {
		w = liveWriter(t, p)
	} else {
		w = rw(t, p)
		defer w.Close()
	}
	for _, q := range prep {
		mustExec(t, w, q)
	}
	if !live {
		return dir, p
	}
	if fi, err := os.Stat(p + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no live -wal: %v", err)
	}
	return dir, p
}

// bigRows adds 300 sessions whose entries carry 5-40 KB of extra text
// (overflow chains of 2-10 pages), then deletes a third (free pages).
func bigRows() []string {
	var q []string
	for i := range 300 {
		q = append(q, fmt.Sprintf(`INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at)
			SELECT 'agent:main:big:%03d', current_session_id, json_set(entry_json, '$.label', 'big %d', '$.pad', '%s'), updated_at
			FROM session_nodes WHERE session_key = 'agent:main:main'`, i, i, strings.Repeat("p", 5000+i*120)))
	}
	return append(q, `DELETE FROM session_nodes WHERE session_key LIKE 'agent:main:big:%' AND CAST(substr(session_key, 16) AS INTEGER) % 3 = 0`)
}

// TestDirectFallsBack: where the direct read cannot promise SQLite's answer
// — a key stored as a number (Scan would convert it), a rollback-journal
// database — the SQL path reads, with the same result.
func TestDirectFallsBack(t *testing.T) {
	for _, c := range []struct {
		name string
		prep []string
	}{
		{"rollback journal", []string{"PRAGMA journal_mode = DELETE"}},
		{"generated column", []string{"ALTER TABLE session_nodes ADD COLUMN g INTEGER GENERATED ALWAYS AS (1) VIRTUAL"}},
		{"text updated_at", []string{
			// A copy of the table without STRICT, so a value of another
			// type can be stored; the direct read must not convert it itself.
			`CREATE TABLE sn2 AS SELECT * FROM session_nodes`,
			`DROP TABLE session_nodes`,
			`CREATE TABLE session_nodes (session_key TEXT NOT NULL PRIMARY KEY, current_session_id TEXT NOT NULL, entry_json TEXT NOT NULL, updated_at)`,
			`INSERT INTO session_nodes SELECT session_key, current_session_id, entry_json, updated_at FROM sn2`,
			`UPDATE session_nodes SET updated_at = CAST(updated_at AS TEXT) WHERE session_key = 'agent:main:main'`,
			`DROP TABLE sn2`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyFixture(t)
			p := Path(dir, "main")
			w := rw(t, p)
			for _, q := range c.prep {
				mustExec(t, w, q)
			}
			w.Close()
			fast, slow, fw, sw, direct := storeBoth(t, p)
			if direct {
				t.Fatal("the direct read was used")
			}
			sameStore(t, c.name, fast, slow, fw, sw)
			if len(fast.Entries) == 0 {
				t.Fatal("no entries")
			}
		})
	}
}

// TestRelaxGC: reads raise the collector's target for their duration, and
// the last of overlapping reads puts the setting back as it was.
func TestRelaxGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	r1 := relaxGC()
	r2 := relaxGC()
	if got := debug.SetGCPercent(relaxedGC); got != relaxedGC {
		t.Fatalf("during reads: GOGC %d", got)
	}
	r1()
	if got := debug.SetGCPercent(relaxedGC); got != relaxedGC {
		t.Fatalf("one read still running: GOGC %d", got)
	}
	r2()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("after the reads: GOGC %d, want 100 back", got)
	}
	debug.SetGCPercent(-1)
	relaxGC()()
	if got := debug.SetGCPercent(100); got != -1 {
		t.Fatalf("GOGC off: a read turned it to %d", got)
	}
}

// SESSIONS_SQLITE_DIRECT=0 (or false) switches the direct read off: every
// read, Store and StoreMeta, goes through SQLite, with the same result;
// unset or any true value, the direct read does the reading.
func TestDirectEnvSwitchesDirectReadOff(t *testing.T) {
	p := Path(copyFixture(t), "main")
	read := func(env string) (full, lean *store.Store, directReads int) {
		t.Helper()
		t.Setenv(DirectEnv, env)
		db, err := Open(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if full, err = db.Store(); err != nil {
			t.Fatal(err)
		}
		if lean, err = db.StoreMeta(); err != nil {
			t.Fatal(err)
		}
		return full, lean, db.directReads
	}
	wantFull, wantLean, n := read("")
	if n != 2 {
		t.Fatalf("unset: %d of 2 reads took the direct path", n)
	}
	for env, wantDirect := range map[string]int{"0": 0, "false": 0, "FALSE": 0, "1": 2, "true": 2, "yes": 2} {
		full, lean, n := read(env)
		if n != wantDirect {
			t.Errorf("%s=%q: %d of 2 reads took the direct path, want %d", DirectEnv, env, n, wantDirect)
		}
		sameStore(t, DirectEnv+"="+env+" Store", full, wantFull, nil, nil)
		sameStore(t, DirectEnv+"="+env+" StoreMeta", lean, wantLean, nil, nil)
	}
}

// TestGenerationsDirectMatchesSQL: TranscriptChanges' generations read
// straight from the file are the SQL path's — on the fixture, with
// thousands of rows in the main file or in a live -wal — and a table the
// direct read does not handle (a generation stored as a number in a table
// that is not STRICT) is read through SQLite, with the same answer.
func TestGenerationsDirectMatchesSQL(t *testing.T) {
	const rows = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2999)
		SELECT 's-' || i || '-' || substr(replace(hex(zeroblob(40)), '00', 'é'), 1, i % 40) AS sid, i FROM n`
	many := []string{
		`INSERT OR REPLACE INTO transcript_rewrite_watermarks (session_id, generation, updated_at)
			SELECT session_id, lower(hex(randomblob(16))), 1795255200000 FROM session_windows`,
		`INSERT INTO session_windows (session_id, session_key, created_at, updated_at)
			SELECT sid, 'agent:main:main', 1, 1 FROM (` + rows + `)`,
		`INSERT INTO transcript_rewrite_watermarks (session_id, generation, updated_at)
			SELECT sid, substr(replace(hex(zeroblob(300)), '00', 'g'), 1, i % 300), 1 FROM (` + rows + `)`,
	}
	cases := []struct {
		name   string
		prep   []string
		live   bool
		direct bool
	}{
		{name: "fixture", direct: true},
		{name: "3,000 rows", prep: many, direct: true},
		{name: "3,000 rows in a live -wal", prep: many, live: true, direct: true},
		{name: "a numeric generation, not STRICT", prep: append(slices.Clone(many),
			`CREATE TABLE marks2 (session_id TEXT NOT NULL PRIMARY KEY, generation NOT NULL, updated_at INTEGER NOT NULL)`,
			`INSERT INTO marks2 SELECT * FROM transcript_rewrite_watermarks`,
			`INSERT OR REPLACE INTO marks2 VALUES ('s-7-ééééééé', 12345, 1)`,
			`DROP TABLE transcript_rewrite_watermarks`,
			`ALTER TABLE marks2 RENAME TO transcript_rewrite_watermarks`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, p := preparedFixture(t, c.prep, c.live)
			fast, direct := changesFrom(t, p, true)
			slow, _ := changesFrom(t, p, false)
			if direct != c.direct {
				t.Fatalf("direct read used: %v, want %v", direct, c.direct)
			}
			if len(slow.Generations) == 0 || !maps.Equal(fast.Generations, slow.Generations) || fast.MaxRowID != slow.MaxRowID {
				t.Fatalf("direct: %d generations, max rowid %d; SQL: %d, %d", len(fast.Generations), fast.MaxRowID, len(slow.Generations), slow.MaxRowID)
			}
		})
	}
}

// changesFrom is TranscriptChanges from the start, asked of the database
// at p opened anew with the direct read on or off, and whether the direct
// read answered.
func changesFrom(t *testing.T, p string, direct bool) (TranscriptChanges, bool) {
	t.Helper()
	defer func(was bool) { directRead = was }(directRead)
	directRead = direct
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ch, err := db.TranscriptChanges(-1)
	if err != nil {
		t.Fatal(err)
	}
	return ch, db.directReads > 0
}

// TestGenerationsKeptWhileTheirTableIs: one DB asked again and again, as
// the search index's catch-up asks it, hands out the generations it read
// while their table's tree is unchanged — a commit of events alone — and
// reads them again after any change to it: a rotation (a generation of the
// same size), a new session's row, a checkpoint; each answer the SQL
// path's.
func TestGenerationsKeptWhileTheirTableIs(t *testing.T) {
	dir := copyFixture(t)
	p := Path(dir, "main")
	w := liveWriter(t, p)
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var sid string
	if err := w.QueryRow(`SELECT session_id FROM transcript_rewrite_watermarks ORDER BY session_id LIMIT 1`).Scan(&sid); err != nil {
		t.Fatal(err)
	}
	// a first commit: the -wal begins (a new log has a new header, which
	// no earlier stamp has)
	mustExec(t, w, `INSERT INTO transcript_events (session_id, seq, event_json, created_at)
		VALUES ('`+sid+`', 1000000, '{"type":"message"}', 1)`)
	last, err := db.TranscriptChanges(-1)
	if err != nil {
		t.Fatal(err)
	}
	for i, step := range []struct {
		what string
		q    string
		kept bool
	}{
		{"a commit of events", `INSERT INTO transcript_events (session_id, seq, event_json, created_at)
			VALUES ('` + sid + `', 1000001, '{"type":"message"}', 1)`, true},
		{"a rotation", `UPDATE transcript_rewrite_watermarks SET generation = lower(hex(randomblob(16))) WHERE session_id = '` + sid + `'`, false},
		{"another commit of events", `INSERT INTO transcript_events (session_id, seq, event_json, created_at)
			VALUES ('` + sid + `', 1000002, '{"type":"message"}', 1)`, true},
		{"a new session's row", `INSERT INTO session_windows (session_id, session_key, created_at, updated_at) VALUES ('new-one', 'agent:main:main', 1, 1);
			INSERT INTO transcript_rewrite_watermarks (session_id, generation, updated_at) VALUES ('new-one', 'g', 1)`, false},
		{"a checkpoint", `PRAGMA wal_checkpoint(PASSIVE)`, false},
	} {
		mustExec(t, w, step.q)
		reads := db.directReads
		ch, err := db.TranscriptChanges(last.MaxRowID)
		if err != nil {
			t.Fatal(err)
		}
		if db.directReads != reads+1 {
			t.Fatalf("step %d (%s): not read directly", i, step.what)
		}
		kept := reflect.ValueOf(ch.Generations).UnsafePointer() == reflect.ValueOf(last.Generations).UnsafePointer()
		if kept != step.kept {
			t.Fatalf("step %d (%s): the last generations handed out again: %v, want %v", i, step.what, kept, step.kept)
		}
		if want, _ := changesFrom(t, p, false); !maps.Equal(ch.Generations, want.Generations) {
			t.Fatalf("step %d (%s): %d generations, the SQL path's %d", i, step.what, len(ch.Generations), len(want.Generations))
		}
		if step.what == "a rotation" && ch.Generation(sid) == last.Generation(sid) {
			t.Fatal("the rotated generation reads as before")
		}
		last = ch
	}
}
