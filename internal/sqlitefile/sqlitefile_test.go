package sqlitefile

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	_ "modernc.org/sqlite"
)

// row is one row as either reader sees it.
type row struct {
	rowid int64
	vals  []Value
}

func (r row) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rowid %d:", r.rowid)
	for _, v := range r.vals {
		switch v.Kind {
		case Int:
			fmt.Fprintf(&b, " int %d", v.Int)
		case Float:
			fmt.Fprintf(&b, " float %v", v.Float)
		case Text, Blob:
			fmt.Fprintf(&b, " %d:%d bytes %.20q", v.Kind, len(v.Bytes), v.Bytes)
		default:
			fmt.Fprintf(&b, " kind %d", v.Kind)
		}
	}
	return b.String()
}

func sameValue(a, b Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Int:
		return a.Int == b.Int
	case Float:
		return math.Float64bits(a.Float) == math.Float64bits(b.Float)
	case Text, Blob:
		return bytes.Equal(a.Bytes, b.Bytes)
	}
	return true
}

// oracle reads table t's columns through modernc.org/sqlite, with typeof()
// so the storage class is compared, not a driver conversion.
func oracle(t testing.TB, q interface {
	Query(string, ...any) (*sql.Rows, error)
}, table string, cols []string) []row {
	t.Helper()
	sel := []string{"rowid"}
	for _, c := range cols {
		sel = append(sel, "typeof("+c+")", c)
	}
	rows, err := q.Query("SELECT " + strings.Join(sel, ", ") + " FROM " + table + " ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []row
	for rows.Next() {
		dst := make([]any, 1+2*len(cols))
		var rowid int64
		dst[0] = &rowid
		types := make([]string, len(cols))
		raws := make([]any, len(cols))
		for i := range cols {
			dst[1+2*i] = &types[i]
			dst[2+2*i] = &raws[i]
		}
		if err := rows.Scan(dst...); err != nil {
			t.Fatal(err)
		}
		r := row{rowid: rowid}
		for i, ty := range types {
			var v Value
			switch ty {
			case "null":
				v.Kind = Null
			case "integer":
				v = Value{Kind: Int, Int: raws[i].(int64)}
			case "real":
				v = Value{Kind: Float, Float: raws[i].(float64)}
			case "text":
				v = Value{Kind: Text, Bytes: []byte(raws[i].(string))}
			case "blob":
				b, _ := raws[i].([]byte)
				v = Value{Kind: Blob, Bytes: append([]byte{}, b...)}
			default:
				t.Fatalf("typeof %q", ty)
			}
			r.vals = append(r.vals, v)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// direct reads the same through this package.
func direct(t testing.TB, path, table string, cols []int) (out []row, err error) {
	t.Helper()
	s, err := Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	root, _, found, err := s.Table(table)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("no table %s", table)
	}
	leaves, err := s.Leaves(root)
	if err != nil {
		return nil, err
	}
	// The subtrees' leaves, one after the other, are the tree's.
	for _, want := range []int{2, 5, 50} {
		subs, err := s.Subtrees(root, want)
		if err != nil {
			return nil, err
		}
		var all []uint32
		for _, sub := range subs {
			l, err := s.Leaves(sub)
			if err != nil {
				return nil, err
			}
			all = append(all, l...)
		}
		if !slices.Equal(all, leaves) {
			t.Fatalf("Subtrees(%d): leaves %v, the tree's %v", want, all, leaves)
		}
	}
	nrows, size, err := s.Count(leaves)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err == nil && len(out) != nrows {
			t.Fatalf("Count: %d rows, the scan %d", nrows, len(out))
		}
	}()
	a := NewArena(Buffer(size / 2)) // and then the arena grows
	err = s.ScanLeaves(leaves, cols, a, func(rowid int64, vals []Value) error {
		out = append(out, row{rowid: rowid, vals: append([]Value(nil), vals...)})
		return nil
	})
	if err == nil && !s.Unchanged() {
		err = ErrChanged
	}
	return out, err
}

func compare(t testing.TB, what string, got, want []row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, modernc %d", what, len(got), len(want))
	}
	for i := range got {
		ok := got[i].rowid == want[i].rowid && len(got[i].vals) == len(want[i].vals)
		for j := 0; ok && j < len(got[i].vals); j++ {
			ok = sameValue(got[i].vals[j], want[i].vals[j])
		}
		if !ok {
			t.Fatalf("%s: row %d\n got %v\nwant %v", what, i, got[i], want[i])
		}
	}
}

func openRW(t testing.TB, path string, pragmas ...string) *sql.DB {
	t.Helper()
	u := url.URL{Scheme: "file", Path: path}
	db, err := sql.Open("sqlite", u.String()+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, p := range pragmas {
		mustExec(t, db, p)
	}
	return db
}

func mustExec(t testing.TB, db interface {
	Exec(string, ...any) (sql.Result, error)
}, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

var testCols = []string{"k", "a", "body", "f", "b", "n"}

// generate builds a WAL database of random rows — sizes from empty to
// several overflow pages, every storage class, deletes that free pages,
// updates, a checkpoint half way — and leaves the writer open with frames
// in the -wal (autocheckpoint off). It returns the writer.
func generate(t testing.TB, path string, seed uint64, pageSize int) *sql.DB {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	db := openRW(t, path, fmt.Sprintf("PRAGMA page_size=%d", pageSize), "PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0")
	mustExec(t, db, `CREATE TABLE t (k TEXT NOT NULL PRIMARY KEY, a INTEGER, body TEXT, f REAL, b BLOB, n)`)
	value := func() any {
		switch rng.IntN(8) {
		case 0:
			return nil
		case 1:
			return rng.Int64() >> rng.IntN(64)
		case 2:
			return -rng.Int64N(1 << uint(rng.IntN(62)+1))
		case 3:
			return rng.Float64() * 1e6
		case 4:
			return bytes.Repeat([]byte{byte(rng.IntN(256))}, rng.IntN(3*pageSize))
		default:
			return strings.Repeat(string(rune('a'+rng.IntN(26))), rng.IntN(2))
		}
	}
	body := func() string {
		n := rng.IntN(4 * pageSize)
		if rng.IntN(4) == 0 {
			n = rng.IntN(40)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		return string(b)
	}
	insert := func(i int) {
		mustExec(t, db, `INSERT OR REPLACE INTO t (k, a, body, f, b, n) VALUES (?, ?, ?, ?, ?, ?)`,
			fmt.Sprintf("key-%d-%d", i, rng.IntN(1000)), rng.Int64()>>rng.IntN(64), body(), rng.Float64(), value(), value())
	}
	n := 20 + rng.IntN(120)
	for i := range n {
		insert(i)
	}
	mustExec(t, db, `DELETE FROM t WHERE rowid % 3 = 0`)
	if rng.IntN(2) == 0 {
		mustExec(t, db, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	for i := range rng.IntN(60) {
		insert(n + i)
	}
	mustExec(t, db, `UPDATE t SET body = body || ? WHERE rowid % 4 = 1`, body())
	mustExec(t, db, `DELETE FROM t WHERE rowid % 5 = 2`)
	return db
}

// TestGeneratedDatabases: on generated databases of three page sizes, with
// frames in the -wal and after a full checkpoint, the reader returns what
// modernc.org/sqlite returns, row for row and value for value.
func TestGeneratedDatabases(t *testing.T) {
	for i, ps := range []int{512, 1024, 4096, 65536} {
		t.Run(fmt.Sprint(ps), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db.sqlite")
			db := generate(t, path, uint64(i+1), ps)
			got, err := direct(t, path, "t", []int{0, 1, 2, 3, 4, 5})
			if err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
				t.Fatalf("the test wants frames in the -wal: %v", err)
			}
			compare(t, "with frames in the -wal", got, oracle(t, db, "t", testCols))
			mustExec(t, db, `PRAGMA wal_checkpoint(TRUNCATE)`)
			got, err = direct(t, path, "t", []int{0, 1, 2, 3, 4, 5})
			if err != nil {
				t.Fatal(err)
			}
			compare(t, "checkpointed", got, oracle(t, db, "t", testCols))
			// A subset of columns, the last ones.
			got, err = direct(t, path, "t", []int{2, 5})
			if err != nil {
				t.Fatal(err)
			}
			compare(t, "columns body, n", got, oracle(t, db, "t", []string{"body", "n"}))
		})
	}
}

// TestUncommittedFrames: frames a writer's open transaction spilled into the
// -wal (a tiny page cache forces it) are not part of the snapshot: the
// reader sees the last commit, as another connection does.
func TestUncommittedFrames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	w := generate(t, path, 7, 1024)
	want := oracle(t, w, "t", testCols)
	mustExec(t, w, `PRAGMA cache_size=2`)
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	before, _ := os.Stat(path + "-wal")
	for i := range 200 {
		mustExec(t, tx, `INSERT INTO t (k, body) VALUES (?, ?)`, fmt.Sprintf("uncommitted-%d", i), strings.Repeat("u", 3000))
	}
	after, _ := os.Stat(path + "-wal")
	if after.Size() <= before.Size() {
		t.Fatalf("the open transaction wrote no frames (%d → %d bytes)", before.Size(), after.Size())
	}
	got, err := direct(t, path, "t", []int{0, 1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "uncommitted frames", got, want)
}

// TestTornWAL: a -wal whose last frame is cut short or has a bad checksum
// ends at the commit before it — the reader agrees with SQLite's recovery
// on a copy.
func TestTornWAL(t *testing.T) {
	for _, damage := range []string{"truncate", "flip"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "db.sqlite")
			w := generate(t, path, 11, 1024)
			// Several small commits at the end, so the damage cuts one.
			for i := range 5 {
				mustExec(t, w, `INSERT INTO t (k, body) VALUES (?, ?)`, fmt.Sprintf("tail-%d", i), "x")
			}
			cp := filepath.Join(t.TempDir(), "db.sqlite")
			copyFile(t, path, cp)
			copyFile(t, path+"-wal", cp+"-wal")
			wal, err := os.ReadFile(cp + "-wal")
			if err != nil {
				t.Fatal(err)
			}
			if damage == "truncate" {
				wal = wal[:len(wal)-100]
			} else {
				wal[len(wal)-50] ^= 0xff
			}
			if err := os.WriteFile(cp+"-wal", wal, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := direct(t, cp, "t", []int{0, 1, 2, 3, 4, 5})
			if err != nil {
				t.Fatal(err)
			}
			want := oracle(t, openRW(t, cp), "t", testCols)
			compare(t, damage, got, want)
			if len(want) != len(oracle(t, w, "t", testCols))-1 {
				t.Fatalf("the damaged copy has %d rows: the damage should cut exactly the last commit", len(want))
			}
		})
	}
}

// TestFixture: the real OpenClaw 2026.9.6 agent database's session rows.
func TestFixture(t *testing.T) {
	src := "../../testdata/state-2026.9.6/agents/main/agent/openclaw-agent.sqlite"
	path := filepath.Join(t.TempDir(), "db.sqlite")
	copyFile(t, src, path)
	cols := []string{"session_key", "current_session_id", "entry_json", "legacy_acp_migration_json", "entry_valid", "updated_at"}
	got, err := direct(t, path, "session_nodes", []int{0, 1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	want := oracle(t, openRW(t, path, "PRAGMA query_only=1"), "session_nodes", cols)
	if len(want) == 0 {
		t.Fatal("fixture has no sessions")
	}
	compare(t, "fixture session_nodes", got, want)
}

// TestRefuses: what the reader does not read is an error of the right kind,
// never a wrong answer.
func TestRefuses(t *testing.T) {
	dir := t.TempDir()
	rollback := filepath.Join(dir, "rollback.sqlite")
	db := openRW(t, rollback)
	mustExec(t, db, `CREATE TABLE t (k TEXT)`)
	db.Close()
	if _, err := Open(rollback, nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("rollback-journal database: %v, want ErrUnsupported", err)
	}
	notdb := filepath.Join(dir, "notdb")
	os.WriteFile(notdb, bytes.Repeat([]byte("x"), 4096), 0o644)
	if _, err := Open(notdb, nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("not a database: %v, want ErrUnsupported", err)
	}
	if _, err := Open(filepath.Join(dir, "missing"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	withoutRowid := filepath.Join(dir, "wr.sqlite")
	db = openRW(t, withoutRowid, "PRAGMA journal_mode=WAL")
	mustExec(t, db, `CREATE TABLE t (k TEXT PRIMARY KEY, v) WITHOUT ROWID`)
	mustExec(t, db, `INSERT INTO t VALUES ('a', 1)`)
	if _, err := direct(t, withoutRowid, "t", []int{0}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("WITHOUT ROWID table: %v, want an error (not a table b-tree)", err)
	}
}

// TestTruncatedUnderTheRead: a file that shrinks under the mapping is
// ErrChanged (the fault recovered), not a crash.
func TestTruncatedUnderTheRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	w := generate(t, path, 3, 1024)
	mustExec(t, w, `PRAGMA wal_checkpoint(TRUNCATE)`)
	w.Close()
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	root, _, _, err := s.Table("t")
	if err != nil {
		t.Fatal(err)
	}
	leaves, err := s.Leaves(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var a Arena
	err = s.ScanLeaves(leaves, []int{0, 2}, &a, func(int64, []Value) error { return nil })
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("scan of a truncated file: %v, want ErrChanged", err)
	}
	if s.Unchanged() {
		t.Fatal("Unchanged after a truncation")
	}
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzReader: on a database generated from the fuzzer's seed and page
// size the reader equals modernc.org/sqlite; then the fuzzer's bytes are
// written over the main file and the -wal at the fuzzer's offsets, and the
// reader must return (anything, or an error) without panicking or looping.
func FuzzReader(f *testing.F) {
	f.Add(uint64(1), uint8(0), uint32(0), []byte{0})
	f.Add(uint64(2), uint8(1), uint32(1<<20), []byte{0xff, 0xff, 0xff, 0xff})
	f.Add(uint64(3), uint8(2), uint32(100), []byte{0x0d})
	f.Fuzz(func(t *testing.T, seed uint64, psel uint8, at uint32, patch []byte) {
		ps := []int{512, 1024, 4096}[int(psel)%3]
		dir := t.TempDir()
		path := filepath.Join(dir, "db.sqlite")
		w := generate(t, path, seed, ps)
		got, err := direct(t, path, "t", []int{0, 1, 2, 3, 4, 5})
		if err != nil {
			t.Fatal(err)
		}
		compare(t, "generated", got, oracle(t, w, "t", testCols))
		w.Close() // checkpoints, removes the -wal
		// Mutate a copy: the reader must not panic or loop.
		if len(patch) == 0 {
			return
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		off := int(at) % len(b)
		copy(b[off:], patch)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = direct(t, path, "t", []int{0, 1, 2, 3, 4, 5})
	})
}

// FuzzCorrupt: any bytes written over a database (main file and -wal with
// uncheckpointed frames, 1 KB pages, overflow chains) at any offsets: the
// reader returns rows or an error — never a panic, never a loop.
func FuzzCorrupt(f *testing.F) {
	f.Add(uint32(0), []byte{0}, uint32(0), []byte{})
	f.Add(uint32(1024+3), []byte{0xff, 0xff}, uint32(32+24+8), []byte{1})
	f.Add(uint32(2048+8), []byte{0, 0, 0, 2}, uint32(16), []byte{0xde, 0xad})
	f.Fuzz(func(t *testing.T, at uint32, patch []byte, walAt uint32, walPatch []byte) {
		base, baseWAL := corruptBase(t)
		dir := t.TempDir()
		path := filepath.Join(dir, "db.sqlite")
		db := bytes.Clone(base)
		copy(db[int(at)%len(db):], patch)
		wal := bytes.Clone(baseWAL)
		copy(wal[int(walAt)%len(wal):], walPatch)
		if err := os.WriteFile(path, db, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+"-wal", wal, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := direct(t, path, "t", []int{0, 1, 2, 3, 4, 5})
		if err == nil && len(patch) == 0 && len(walPatch) == 0 && len(rows) == 0 {
			t.Fatal("the unpatched database read as empty")
		}
	})
}

var corrupt struct {
	once    sync.Once
	db, wal []byte
	err     error
}

// corruptBase is a generated database with frames in its -wal, as bytes.
func corruptBase(t *testing.T) (db, wal []byte) {
	corrupt.once.Do(func() {
		dir, err := os.MkdirTemp("", "sqlitefile-fuzz-")
		if err != nil {
			corrupt.err = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "db.sqlite")
		w := generate(t, path, 5, 1024)
		if corrupt.db, corrupt.err = os.ReadFile(path); corrupt.err == nil {
			corrupt.wal, corrupt.err = os.ReadFile(path + "-wal")
		}
		w.Close()
	})
	if corrupt.err != nil || len(corrupt.wal) == 0 {
		t.Fatalf("base database: %v (-wal %d bytes)", corrupt.err, len(corrupt.wal))
	}
	return corrupt.db, corrupt.wal
}

// TestWALReadOn: snapshots of one database taken again and again in one
// process read the -wal on from where the last one left it (walSeen) —
// across commits, updates of rows already there, checkpoints that restart
// or truncate the log, and an open transaction's spilled frames rolled
// back (the next commit writes over them) — and always agree with SQLite.
func TestWALReadOn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	w := generate(t, path, 21, 1024)
	rng := rand.New(rand.NewPCG(21, 5))
	check := func(what string, want []row) {
		t.Helper()
		got, err := direct(t, path, "t", []int{0, 1, 2, 3, 4, 5})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if want == nil {
			want = oracle(t, w, "t", testCols)
		}
		compare(t, what, got, want)
	}
	// readOn is whether the next snapshot can start where the last left
	// off: a kept state for the -wal with its present header.
	readOn := func() bool {
		hdr := make([]byte, 32)
		f, err := os.Open(path + "-wal")
		if err != nil {
			return false
		}
		defer f.Close()
		if n, _ := f.ReadAt(hdr, 0); n < 32 {
			return false
		}
		found := false
		walSeen.Range(func(k, v any) bool {
			if k.(string) == path && v.(*walAt).hdr == [32]byte(hdr) && v.(*walAt).end > 32 {
				found = true
			}
			return true
		})
		return found
	}
	check("first", nil)
	body := func() string { return strings.Repeat(string(rune('a'+rng.IntN(26))), rng.IntN(5000)) }
	var ops = map[string]int{}
	readOns := 0
	for step := range 80 {
		var what string
		var want []row
		switch op := rng.IntN(12); {
		case op < 6:
			what = "commits"
			for range 1 + rng.IntN(8) {
				mustExec(t, w, `INSERT OR REPLACE INTO t (k, body, a) VALUES (?, ?, ?)`, fmt.Sprintf("k%d", rng.IntN(400)), body(), step)
			}
		case op < 8:
			what = "an update of rows already there"
			mustExec(t, w, `UPDATE t SET body = ?, a = ? WHERE rowid % 7 = ?`, body(), step, rng.IntN(7))
		case op == 8:
			what = "a passive checkpoint"
			mustExec(t, w, `PRAGMA wal_checkpoint(PASSIVE)`)
		case op == 9:
			what = "a restarting checkpoint and a commit"
			mustExec(t, w, `PRAGMA wal_checkpoint(RESTART)`)
			mustExec(t, w, `INSERT OR REPLACE INTO t (k, body) VALUES ('after-restart', ?)`, body())
		case op == 10:
			what = "a truncating checkpoint and a commit"
			mustExec(t, w, `PRAGMA wal_checkpoint(TRUNCATE)`)
			mustExec(t, w, `INSERT OR REPLACE INTO t (k, body) VALUES ('after-truncate', ?)`, body())
		default:
			// a commit no snapshot has read yet, then the spilled frames
			// after it: the read sees both, and must keep its place at the
			// commit, not after the frames
			what = "a commit and an open transaction's spilled frames"
			mustExec(t, w, `INSERT OR REPLACE INTO t (k, body) VALUES ('before-spill', ?)`, body())
			want = oracle(t, w, "t", testCols)
			conn, err := w.Conn(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			exec := func(q string, args ...any) {
				if _, err := conn.ExecContext(t.Context(), q, args...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			exec(`PRAGMA cache_size=2`)
			exec(`BEGIN`)
			for i := range 60 {
				exec(`INSERT OR REPLACE INTO t (k, body) VALUES (?, ?)`, fmt.Sprintf("spilled-%d", i), strings.Repeat("s", 3000))
			}
			if readOn() {
				readOns++
			}
			check(what, want)
			exec(`ROLLBACK`)
			exec(`PRAGMA cache_size=-2000`)
			conn.Close()
			want = nil
			what = "a commit over the rolled back frames"
			mustExec(t, w, `INSERT OR REPLACE INTO t (k, body) VALUES ('over-rollback', ?)`, body())
		}
		ops[what]++
		if readOn() {
			readOns++
		}
		check(fmt.Sprintf("step %d, after %s", step, what), want)
	}
	if readOns < 20 {
		t.Fatalf("only %d snapshots could read on from an earlier one (ops %v)", readOns, ops)
	}
	t.Logf("%d snapshots read on; ops %v", readOns, ops)
}

// TestTreeStamp: a table's stamp stays while nothing of its tree changes —
// another table's commits, a snapshot taken again — and changes with any
// change to its rows: a small row, a row's overflow part alone changed in
// place (same size: SQLite writes only the overflow page), a checkpoint
// that writes the main file.
func TestTreeStamp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	w := openRW(t, path, "PRAGMA page_size=1024", "PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0")
	mustExec(t, w, `CREATE TABLE t (k TEXT NOT NULL PRIMARY KEY, body TEXT)`)
	mustExec(t, w, `CREATE TABLE u (x)`)
	for i := range 200 {
		mustExec(t, w, `INSERT INTO t VALUES (?, ?)`, fmt.Sprintf("k%03d", i), strings.Repeat("b", 50+i*15))
	}
	stamp := func() (string, []row) {
		t.Helper()
		s, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		root, _, found, err := s.Table("t")
		if err != nil || !found {
			t.Fatal(found, err)
		}
		st, err := s.TreeStamp(root)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := direct(t, path, "t", []int{0, 1})
		if err != nil {
			t.Fatal(err)
		}
		return st, rows
	}
	first, rows := stamp()
	if again, _ := stamp(); again != first {
		t.Fatal("the same snapshot taken again has another stamp")
	}
	mustExec(t, w, `INSERT INTO u VALUES (1)`)
	if other, _ := stamp(); other != first {
		t.Fatal("a commit to another table changed the stamp")
	}
	steps := []struct{ what, q string }{
		{"a small row", `UPDATE t SET body = 'c' WHERE k = 'k001'`},
		// k150's 2,300 bytes span three 1 KiB overflow pages: the same size,
		// one byte at the end changed, is written over its last page alone
		{"an overflow page alone", `UPDATE t SET body = substr(body, 1, length(body) - 1) || 'Z' WHERE k = 'k150'`},
		{"a checkpoint", `PRAGMA wal_checkpoint(PASSIVE)`},
	}
	last, lastRows := first, rows
	for _, s := range steps {
		mustExec(t, w, s.q)
		st, rows := stamp()
		if st == last {
			t.Fatalf("%s: the stamp did not change", s.what)
		}
		if s.what != "a checkpoint" && reflect.DeepEqual(rows, lastRows) {
			t.Fatalf("%s: the rows did not change (the step tests nothing)", s.what)
		}
		last, lastRows = st, rows
	}
}
