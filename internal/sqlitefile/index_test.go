package sqlitefile

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// keyRange is the index range of the tests: s = id, from ≤ q < before —
// what an events read asks of transcript_events' primary key.
type keyRange struct {
	id           []byte
	from, before int64
}

var errKeyKind = errors.New("key of an unexpected kind")

func (r keyRange) Compare(key []Value) (int, error) {
	if key[0].Kind != Text || key[1].Kind != Int {
		return 0, errKeyKind
	}
	if c := bytes.Compare(key[0].Bytes, r.id); c != 0 {
		return c, nil
	}
	switch {
	case key[1].Int < r.from:
		return -1, nil
	case key[1].Int >= r.before:
		return 1, nil
	}
	return 0, nil
}

// eventsDB builds a WAL database shaped like transcript_events — a rowid
// table whose PRIMARY KEY (s, q) is an index — with sessions of every key
// length (some past an index page's local payload, so index cells
// overflow), seqs inserted out of order, bodies from empty to several
// overflow pages, deletes, and frames left in the -wal. It returns the
// writer and the session ids.
func eventsDB(t testing.TB, path string, seed uint64, pageSize int) (*sql.DB, []string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x51ed27))
	db := openRW(t, path, fmt.Sprintf("PRAGMA page_size=%d", pageSize), "PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0")
	mustExec(t, db, `CREATE TABLE e (s TEXT NOT NULL, q INTEGER NOT NULL, body TEXT, z BLOB, PRIMARY KEY (s, q)) STRICT`)
	var ids []string
	for i := range 12 + rng.IntN(20) {
		id := fmt.Sprintf("%08x-%d", rng.Uint32(), i)
		switch rng.IntN(5) {
		case 0:
			id = id[:1+rng.IntN(len(id))]
		case 1:
			id += strings.Repeat("x", pageSize/4+rng.IntN(pageSize)) // overflows an index cell
		case 2:
			id = "é" + id // not ASCII
		}
		ids = append(ids, id)
	}
	ids = append(ids, "") // the empty id sorts first
	body := func() any {
		switch rng.IntN(6) {
		case 0:
			return nil
		case 1:
			return ""
		}
		n := rng.IntN(3 * pageSize)
		if rng.IntN(3) > 0 {
			n = rng.IntN(200)
		}
		return strings.Repeat(string(rune('a'+rng.IntN(26))), n)
	}
	insert := func() {
		id := ids[rng.IntN(len(ids))]
		q := rng.Int64N(400) - 20 // some negative
		if rng.IntN(50) == 0 {
			q = rng.Int64() >> rng.IntN(60)
		}
		var z any
		if rng.IntN(4) == 0 {
			z = bytes.Repeat([]byte{byte(rng.IntN(256))}, rng.IntN(pageSize))
		}
		mustExec(t, db, `INSERT OR REPLACE INTO e (s, q, body, z) VALUES (?, ?, ?, ?)`, id, q, body(), z)
	}
	n := 300 + rng.IntN(900)
	for range n {
		insert()
	}
	mustExec(t, db, `DELETE FROM e WHERE rowid % 7 = 3`)
	if rng.IntN(2) == 0 {
		mustExec(t, db, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	for range rng.IntN(300) {
		insert()
	}
	mustExec(t, db, `DELETE FROM e WHERE rowid % 11 = 5`)
	return db, ids
}

// indexRows reads the rows of e in rng through its primary key's index
// and the table, as an events read does.
func indexRows(t testing.TB, s *Snapshot, rng keyRange) ([]row, error) {
	t.Helper()
	iroot, table, isql, found, err := s.Index("sqlite_autoindex_e_1")
	if err != nil {
		return nil, err
	}
	if !found || table != "e" || isql != "" {
		t.Fatalf("index: found %v, table %q, sql %q", found, table, isql)
	}
	troot, _, found, err := s.Table("e")
	if err != nil || !found {
		t.Fatalf("table: %v %v", found, err)
	}
	cur := s.SeekIndex(iroot, 3, rng, NewScratch())
	rows := s.Rows(troot, []int{1, 2, 3}, &Arena{})
	var out []row
	for {
		key, ok := cur.Next()
		if !ok {
			break
		}
		if key[2].Kind != Int {
			t.Fatalf("index entry without a rowid: %v", key)
		}
		rowid, q := key[2].Int, key[1].Int
		vals, found, err := rows.Row(rowid)
		if err != nil {
			return nil, err
		}
		if !found {
			t.Fatalf("rowid %d of the index is not in the table", rowid)
		}
		if vals[0].Kind != Int || vals[0].Int != q {
			t.Fatalf("rowid %d: q %v in the table, %d in the index", rowid, vals[0], q)
		}
		out = append(out, row{rowid: rowid, vals: append([]Value(nil), vals...)})
	}
	return out, cur.Err()
}

// indexOracle is the same through SQLite.
func indexOracle(t testing.TB, db *sql.DB, rng keyRange) []row {
	t.Helper()
	rows, err := db.Query(`SELECT rowid, q, typeof(body), body, typeof(z), z FROM e WHERE s = ? AND q >= ? AND q < ? ORDER BY s, q`, string(rng.id), rng.from, rng.before)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []row
	for rows.Next() {
		var rowid, q int64
		var tb, tz string
		var body, z any
		if err := rows.Scan(&rowid, &q, &tb, &body, &tz, &z); err != nil {
			t.Fatal(err)
		}
		r := row{rowid: rowid, vals: []Value{{Kind: Int, Int: q}}}
		for _, c := range []struct {
			typ string
			v   any
		}{{tb, body}, {tz, z}} {
			switch c.typ {
			case "null":
				r.vals = append(r.vals, Value{Kind: Null})
			case "text":
				r.vals = append(r.vals, Value{Kind: Text, Bytes: []byte(c.v.(string))})
			case "blob":
				b, _ := c.v.([]byte)
				r.vals = append(r.vals, Value{Kind: Blob, Bytes: append([]byte{}, b...)})
			default:
				t.Fatalf("typeof %q", c.typ)
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestIndexRangeMatchesSQL: on generated databases of four page sizes, with
// frames in the -wal and after a checkpoint, every range of every session
// (and of ids between and around them) reads through the index and the
// table what SQLite's range query returns, row for row.
func TestIndexRangeMatchesSQL(t *testing.T) {
	for i, ps := range []int{512, 1024, 4096, 65536} {
		t.Run(fmt.Sprint(ps), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db.sqlite")
			db, ids := eventsDB(t, path, uint64(i+11), ps)
			rng := rand.New(rand.NewPCG(uint64(i), 3))
			check := func(what string) {
				s, err := Open(path, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				probe := append([]string(nil), ids...)
				for _, id := range ids {
					probe = append(probe, id+"\x00", id[:len(id)/2], id+"~")
				}
				probe = append(probe, "\xff\xff")
				all, seen := 0, map[string]bool{}
				for _, id := range probe {
					if seen[id] {
						continue
					}
					seen[id] = true
					ranges := []keyRange{{[]byte(id), -1 << 62, 1 << 62}}
					for range 3 {
						a, b := rng.Int64N(420)-30, rng.Int64N(420)-30
						ranges = append(ranges, keyRange{[]byte(id), min(a, b), max(a, b)})
					}
					for _, r := range ranges {
						got, err := indexRows(t, s, r)
						if err != nil {
							t.Fatalf("%s: %q [%d, %d): %v", what, id, r.from, r.before, err)
						}
						compare(t, fmt.Sprintf("%s: %q [%d, %d)", what, id, r.from, r.before), got, indexOracle(t, db, r))
						if r.from == -1<<62 {
							all += len(got)
						}
					}
				}
				var n int
				if err := db.QueryRow(`SELECT count(*) FROM e`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if all != n {
					t.Fatalf("%s: the sessions' whole ranges hold %d rows, the table %d", what, all, n)
				}
			}
			if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
				t.Fatalf("the test wants frames in the -wal: %v", err)
			}
			check("with frames in the -wal")
			mustExec(t, db, `PRAGMA wal_checkpoint(TRUNCATE)`)
			check("checkpointed")
		})
	}
}

// TestRowsLookup: every rowid of the table, and rowids around them that
// it does not hold, are found (or not) as SQLite finds them.
func TestRowsLookup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	db := generate(t, path, 3, 1024)
	want := oracle(t, db, "t", testCols)
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	root, _, _, err := s.Table("t")
	if err != nil {
		t.Fatal(err)
	}
	rows := s.Rows(root, []int{0, 1, 2, 3, 4, 5}, NewScratch())
	held := map[int64]bool{}
	var got []row
	for _, w := range want {
		held[w.rowid] = true
		vals, found, err := rows.Row(w.rowid)
		if err != nil || !found {
			t.Fatalf("rowid %d: found %v, %v", w.rowid, found, err)
		}
		got = append(got, row{rowid: w.rowid, vals: cloneVals(vals)})
	}
	compare(t, "by rowid", got, want)
	for _, id := range []int64{-1 << 62, -1, 0, want[len(want)-1].rowid + 1, 1 << 62} {
		if _, found, err := rows.Row(id); found || err != nil {
			t.Fatalf("rowid %d: found %v, %v", id, found, err)
		}
	}
	for id := int64(1); id < want[len(want)-1].rowid; id++ {
		if held[id] {
			continue
		}
		if _, found, err := rows.Row(id); found || err != nil {
			t.Fatalf("deleted rowid %d: found %v, %v", id, found, err)
		}
	}
}

func cloneVals(vals []Value) []Value {
	out := make([]Value, len(vals))
	for i, v := range vals {
		out[i] = v
		out[i].Bytes = bytes.Clone(v.Bytes)
	}
	return out
}

// FuzzIndexCorrupt: an index range read of a damaged database file (a
// patch anywhere in the main file or the -wal) returns rows or an error —
// never a panic, never a loop.
func FuzzIndexCorrupt(f *testing.F) {
	f.Add(uint32(0), []byte{0}, uint32(0), []byte{})
	f.Add(uint32(1024+3), []byte{0xff, 0xff}, uint32(32+24+8), []byte{1})
	f.Add(uint32(2048+8), []byte{0, 0, 0, 2}, uint32(16), []byte{0xde, 0xad})
	f.Add(uint32(3072+12), []byte{0, 0, 0, 3}, uint32(0), []byte{})
	f.Fuzz(func(t *testing.T, at uint32, patch []byte, walAt uint32, walPatch []byte) {
		base, baseWAL, ids := indexBase(t)
		dir := t.TempDir()
		path := filepath.Join(dir, "db.sqlite")
		db := bytes.Clone(base)
		copy(db[int(at)%len(db):], patch)
		wal := bytes.Clone(baseWAL)
		if len(wal) > 0 {
			copy(wal[int(walAt)%len(wal):], walPatch)
		}
		if err := os.WriteFile(path, db, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+"-wal", wal, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(path, nil)
		if err != nil {
			return
		}
		defer s.Close()
		iroot, _, _, found, err := s.Index("sqlite_autoindex_e_1")
		if err != nil || !found {
			return
		}
		troot, _, found, err := s.Table("e")
		if err != nil || !found {
			return
		}
		rows := s.Rows(troot, []int{1, 2, 3}, NewScratch())
		for _, id := range ids[:4] {
			cur := s.SeekIndex(iroot, 3, keyRange{[]byte(id), -1 << 62, 1 << 62}, NewScratch())
			for n := 0; ; n++ {
				key, ok := cur.Next()
				if !ok {
					break
				}
				if n > len(db)/4 {
					t.Fatalf("more entries than the file can hold")
				}
				if key[2].Kind == Int {
					rows.Row(key[2].Int)
				}
			}
		}
	})
}

var indexFuzz struct {
	db, wal []byte
	ids     []string
	err     error
	done    bool
}

func indexBase(t *testing.T) (db, wal []byte, ids []string) {
	if !indexFuzz.done {
		indexFuzz.done = true
		dir, err := os.MkdirTemp("", "sqlitefile-index-fuzz-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "db.sqlite")
		w, ids := eventsDB(t, path, 9, 1024)
		indexFuzz.ids = ids
		if indexFuzz.db, indexFuzz.err = os.ReadFile(path); indexFuzz.err == nil {
			indexFuzz.wal, indexFuzz.err = os.ReadFile(path + "-wal")
		}
		w.Close()
	}
	if indexFuzz.err != nil {
		t.Fatal(indexFuzz.err)
	}
	return indexFuzz.db, indexFuzz.wal, indexFuzz.ids
}
