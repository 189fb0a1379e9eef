package sqlitestore

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/mapfile"
	"github.com/openclaw/sessions/internal/transcript"
)

// manyEvents adds 120 sessions whose events are written round-robin (each
// session's rows scattered over the table, as a live gateway writes them):
// JSON of 20 bytes to 12 KB (overflow chains), some stored compressed, an
// empty event and a seq gap here and there; then deletes some rows.
func manyEvents(t *testing.T, w *sql.DB, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	const sessions = 120
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = fmt.Sprintf("d%07d-0000-4000-8000-%012d", i, i*7)
		mustExec(t, w, `INSERT INTO session_windows (session_id, session_key, created_at, updated_at) VALUES (?, 'agent:main:main', 1, 1)`, ids[i])
	}
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	seq := make([]int64, sessions)
	for round := range 25 {
		for i, id := range ids {
			if rng.IntN(4) == 0 {
				continue
			}
			seq[i] += 1 + int64(rng.IntN(2))
			pad := strings.Repeat(string(rune('a'+rng.IntN(26))), rng.IntN(200))
			if rng.IntN(10) == 0 {
				pad = strings.Repeat("é", 2000+rng.IntN(4000))
			}
			line := fmt.Sprintf(`{"type":"message","id":"m%d-%d","message":{"role":"user","content":"%s"}}`, round, i, pad)
			switch k := rng.IntN(12); {
			case k == 0:
				_, err = tx.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?, ?, NULL, 1, ?, ?, ?)`,
					id, seq[i], zstdOf(t, []byte(line)), len(line), navigationJSON)
			case k == 1:
				_, err = tx.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, '', 1)`, id, seq[i])
			default:
				_, err = tx.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 1)`, id, seq[i], line)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, w, `DELETE FROM transcript_events WHERE session_id LIKE 'd%' AND rowid % 9 = 4`)
}

// eventsDump is everything the reads of one database give for each of its
// sessions: Events, EventsFrom a middle seq, Messages forwards, a
// history page backwards and Stream.
type eventsDump map[string][]string

func dumpEvents(t *testing.T, p string, direct bool) (eventsDump, *DB) {
	t.Helper()
	defer func(was bool) { directRead = was }(directRead)
	directRead = direct
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var ids []string
	rows, err := db.conn.Query(`SELECT DISTINCT session_id FROM transcript_events ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	out := eventsDump{}
	for _, id := range ids {
		var d []string
		var seqs []int64
		err := db.Events(id, 3000, func() { d, seqs = nil, nil }, func(seq int64, data []byte, st transcript.Status) {
			d = append(d, fmt.Sprintf("events %d %v %q", seq, st, data))
			seqs = append(seqs, seq)
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(seqs) > 0 {
			from := seqs[len(seqs)/2]
			err = db.EventsFrom(id, from, 3000, func(seq int64, data []byte, st transcript.Status) {
				d = append(d, fmt.Sprintf("from %d: %d %v %q", from, seq, st, data))
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		opts := []transcript.Options{{}, {IncludeTools: true, MaxLineBytes: 5000}, {Limit: 3, More: true}}
		if all, err := db.Messages(id, transcript.Options{}); err == nil && len(all.Positions) > 2 {
			// forwards up to a cursor: the range's upper bound
			mid := len(all.Positions) / 2
			opts = append(opts, transcript.Options{Before: all.Positions[mid], BeforeCheck: all.Checks[mid]})
		}
		for _, o := range opts {
			res, err := db.Messages(id, o)
			if err != nil {
				t.Fatal(err)
			}
			d = append(d, fmt.Sprintf("messages %+v: %d %v %d %v %v", o, len(res.Messages), res.Positions, res.Size, res.Skipped, res.More))
			for _, m := range res.Messages {
				d = append(d, string(m))
			}
		}
		err = db.Stream(id, 0, transcript.Options{}, func(l transcript.Line) error {
			d = append(d, fmt.Sprintf("stream %d %v %q %q", l.Pos, l.Status, l.Raw, l.Message))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		out[id] = d
	}
	return out, db
}

// TestEventsDirectMatchesSQL: every read of a session's events — Events,
// EventsFrom, Messages, Stream — gives the same with the direct read of
// transcript_events as through SQLite: on the fixture, on 120 sessions
// written round-robin (rows scattered, compressed, empty, deleted), with
// those in a live -wal, and with a cold archive beside hot rows; where
// the table holds what SQLite would convert, SQLite finishes the read.
func TestEventsDirectMatchesSQL(t *testing.T) {
	ref := copyFixture(t)
	seqs, lines := rawEvents(t, Path(ref, "main"), mainSession)
	cases := []struct {
		name     string
		live     bool
		prep     func(t *testing.T, w *sql.DB, p string)
		fallback bool
	}{
		{name: "fixture"},
		{name: "120 sessions", prep: func(t *testing.T, w *sql.DB, _ string) { manyEvents(t, w, 1) }},
		{name: "120 sessions in a live -wal", live: true, prep: func(t *testing.T, w *sql.DB, _ string) { manyEvents(t, w, 2) }},
		{name: "a cold archive and hot rows", prep: func(t *testing.T, w *sql.DB, p string) {
			w.Close()
			archive(t, p, mainSession, seqs, lines, seqs[len(seqs)/2], "sqlite")
		}},
		{name: "a blob where the JSON goes, not STRICT", fallback: true, prep: func(t *testing.T, w *sql.DB, _ string) {
			manyEvents(t, w, 3)
			var def string
			if err := w.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'transcript_events'`).Scan(&def); err != nil {
				t.Fatal(err)
			}
			mustExec(t, w, `PRAGMA writable_schema = ON`)
			mustExec(t, w, `UPDATE sqlite_master SET sql = ? WHERE name = 'transcript_events'`, strings.TrimSuffix(strings.TrimSpace(def), "STRICT"))
			mustExec(t, w, `PRAGMA writable_schema = OFF`)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyFixture(t)
			p := Path(dir, "main")
			if c.prep != nil {
				var w *sql.DB
				if c.live {
					w = liveWriter(t, p)
				} else {
					w = rw(t, p)
				}
				c.prep(t, w, p)
				if !c.live {
					w.Close()
				}
				if c.fallback {
					w := rw(t, p)
					mustExec(t, w, `UPDATE transcript_events SET event_json = x'3132' WHERE session_id = 'd0000007-0000-4000-8000-000000000049' AND seq = (SELECT max(seq) FROM transcript_events WHERE session_id = 'd0000007-0000-4000-8000-000000000049')`)
					w.Close()
				}
			}
			before := snapshot(t, dir)
			fast, db := dumpEvents(t, p, true)
			slow, sdb := dumpEvents(t, p, false)
			if !c.live { // a live writer's readers share its -shm
				assertUnchanged(t, dir, before)
			}
			if mapfile.Mmap && db.directEvents == 0 || sdb.directEvents != 0 { // (where files are read, not mapped, it never reads direct)
				t.Fatalf("direct events reads: %d with it on, %d off", db.directEvents, sdb.directEvents)
			}
			if mapfile.Mmap && (db.directFallbacks > 0) != c.fallback {
				t.Fatalf("%d reads finished through SQLite, want some: %v", db.directFallbacks, c.fallback)
			}
			if len(slow) == 0 || !reflect.DeepEqual(sortedKeys(fast), sortedKeys(slow)) {
				t.Fatalf("sessions: direct %d, SQL %d", len(fast), len(slow))
			}
			for _, id := range sortedKeys(slow) {
				if !slices.Equal(fast[id], slow[id]) {
					f, s := fast[id], slow[id]
					for i := range min(len(f), len(s)) {
						if f[i] != s[i] {
							t.Fatalf("session %s, line %d:\ndirect %.300s\n   SQL %.300s", id, i, f[i], s[i])
						}
					}
					t.Fatalf("session %s: direct %d lines, SQL %d", id, len(f), len(s))
				}
			}
		})
	}
}
