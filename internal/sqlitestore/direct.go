package sqlitestore

import (
	"database/sql"
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/sqlitefile"
)

// Store's direct read: session_nodes straight from the database file
// (internal/sqlitefile), inside the same read transaction the SQL path
// would use, and only where the result is provably what SQLite returns.
//
// Why: selecting a 10,000-session table's 140 MB of entry_json through
// modernc.org/sqlite costs several times what reading the pages costs
// (docs/PERFORMANCE.md); reading them in place, scanning each
// entry right after its bytes are copied out, on every CPU, is within 2× of
// the native sqlite3 shell.
//
// Safety, in order:
//
//   - The SQL read transaction is opened first (a query on sqlite_master):
//     SQLite's own locks and busy timeout apply exactly as before (a writer
//     in locking_mode=EXCLUSIVE still ends in exit 11), and with a live
//     -wal our read mark keeps any checkpoint from writing a page of the
//     main file that our snapshot reads there (a checkpoint only copies
//     frames up to the oldest reader's mark, and every page with such a
//     frame is read from the -wal) and the WAL from restarting under us.
//   - The table's definition (its CREATE TABLE text) and root page must be
//     the ones the schema check saw and SQLite's own sqlite_master holds in
//     this transaction; the columns read must be plain stored columns (no
//     generated column shifts the record, none is the rowid alias).
//   - sqlitefile takes no lock and writes nothing; the main file is mapped
//     from a descriptor kept open as long as the SQL connection (closing
//     one would drop SQLite's POSIX locks on it).
//   - After the read, the main file and the -wal header must be unchanged
//     (sqlitefile.Snapshot.Unchanged); an immutable read is then also
//     checked by read() as before.
//   - Any value of a type the SQL path would convert (a numeric key, a text
//     updated_at, a row written before a column was added), any error of
//     the file reader (corrupt, unsupported, changed, truncated): the
//     whole read is done by the SQL path instead, in the same transaction.
//
// FuzzReader (internal/sqlitefile) holds the file reader equal to
// modernc.org/sqlite; TestDirectMatchesSQL holds Store's two paths equal.

// directRead switches the direct read on (tests compare both paths).
var directRead = true

// DirectEnv is the environment variable that switches the direct read off:
// 0 or false (any value strconv.ParseBool reads as false) makes every read
// go through SQLite. The direct read only ever returns what the SQL path
// would; the switch is there to rule it out when something looks wrong
// (a filesystem where mapping misbehaves, a suspected difference) and to
// measure the SQL path. Read at each read, so it also applies to a DB
// already open.
const DirectEnv = "SESSIONS_SQLITE_DIRECT"

// directOn reports whether a read may take the direct path.
func directOn() bool {
	if !directRead {
		return false
	}
	on, err := strconv.ParseBool(os.Getenv(DirectEnv))
	return err != nil || on // unset or unreadable: the default, on
}

// directTable is where some columns of a rowid table are in its records,
// with the table's root page and definition as they were inspected.
type directTable struct {
	name string
	sql  string // the CREATE TABLE statement
	root int64
	at   []int // the record column of each column asked for, in the order asked
}

// nodeCols are the columns of session_nodes a direct Store read reads:
// its directTable's at holds them in this order.
var nodeCols = []string{"session_key", "entry_json", "updated_at"}

// directTableOf inspects table in transaction tx for a direct read of
// columns names; nil when its definition is one the direct read does not
// handle (WITHOUT ROWID, a generated column, a column asked for that is
// missing or is the rowid alias), or when anything about it cannot be
// asked: the direct read is only ever a faster way to the same answer,
// never a reason for a read to fail.
func directTableOf(tx *sql.Tx, table string, names ...string) *directTable {
	t := &directTable{name: table, at: make([]int, len(names))}
	for i := range t.at {
		t.at[i] = -1
	}
	var root sql.NullInt64
	var def sql.NullString
	err := tx.QueryRow("SELECT rootpage, sql FROM sqlite_master WHERE type = 'table' AND name = ?", table).Scan(&root, &def)
	if err != nil || !root.Valid || !def.Valid || strings.Contains(strings.ToUpper(def.String), "WITHOUT ROWID") {
		return nil
	}
	t.root, t.sql = root.Int64, def.String
	rows, err := tx.Query("SELECT cid, name, type, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid", table)
	if err != nil {
		return nil
	}
	defer rows.Close()
	n, pks := 0, 0
	alias := -1 // an INTEGER primary key column asked for: the rowid alias if it is the only one
	for rows.Next() {
		var cid, pk, hiddenCol int
		var name, typ string
		if err := rows.Scan(&cid, &name, &typ, &pk, &hiddenCol); err != nil {
			return nil
		}
		if cid != n || hiddenCol != 0 {
			return nil // generated columns: not in every record
		}
		n++
		if pk > 0 {
			pks++
		}
		i := slices.Index(names, name)
		if i < 0 {
			continue
		}
		if pk > 0 && strings.EqualFold(strings.TrimSpace(typ), "INTEGER") {
			alias = cid
		}
		t.at[i] = cid
	}
	if rows.Err() != nil || slices.Contains(t.at, -1) {
		return nil
	}
	if alias >= 0 && pks == 1 {
		return nil // the rowid alias: NULL in the record
	}
	return t
}

// snapshot returns a snapshot of the database file at path (its main file
// the descriptor mainFile keeps) and the table's root page in it, after
// checking, in the read transaction tx, that the table is still the one
// inspected both in SQLite's own schema and in the file's; ok is false
// when it is not, or the file cannot be read so. The caller closes the
// snapshot, and checks Unchanged after its read.
func (t *directTable) snapshot(tx *sql.Tx, path string) (snap *sqlitefile.Snapshot, root uint32, ok bool) {
	var sroot int64
	var def string
	if err := tx.QueryRow("SELECT rootpage, sql FROM sqlite_master WHERE type = 'table' AND name = ?", t.name).Scan(&sroot, &def); err != nil || sroot != t.root || def != t.sql {
		return nil, 0, false
	}
	main, err := mainFile(path)
	if err != nil {
		return nil, 0, false
	}
	snap, err = sqlitefile.Open(path, main)
	if err != nil {
		return nil, 0, false
	}
	froot, fdef, found, err := snap.Table(t.name)
	if err != nil || !found || int64(froot) != sroot || fdef != def {
		snap.Close()
		return nil, 0, false
	}
	return snap, froot, true
}

// cols returns the record columns to read, in increasing order, and where
// each column asked for is among them.
func (t *directTable) cols() (cols, idx []int) {
	cols = slices.Clone(t.at)
	slices.Sort(cols)
	cols = slices.Compact(cols)
	idx = make([]int, len(t.at))
	for i, c := range t.at {
		idx[i] = slices.Index(cols, c)
	}
	return cols, idx
}

// errFallback ends a direct read the SQL path must redo.
var errFallback = errors.New("sqlitestore: read through SQLite")

// storeDirect reads every row of session_nodes from the file and parses it
// (see above). ok is false when the SQL path must read instead; the SQL
// errors of the transaction itself are left for it to report.
func (db *DB) storeDirect(tx *sql.Tx, lean bool) (outs [][]parsed, ok bool) {
	snap, root, ok := db.direct.snapshot(tx, db.path)
	if !ok {
		return nil, false
	}
	defer snap.Close()
	outs, err := scanDirect(snap, root, db.direct, lean)
	if err != nil || !snap.Unchanged() {
		return nil, false
	}
	db.directReads++
	return outs, true
}

// scanDirect reads and parses the rows of the table b-tree at root on every
// CPU: the tree is split into subtrees; their leaves and the size of their
// records are gathered in parallel; one buffer is allocated for all the
// values (one allocation instead of hundreds, each a garbage-collection
// assist on the workers); then each subtree's rows are copied out and each
// parsed right after its copy (still in cache). The result is in table
// order, part by part. lean (StoreMeta): no buffer at all — each worker
// copies a row into the same scratch memory, parses it there and keeps only
// the entry's fields.
func scanDirect(snap *sqlitefile.Snapshot, root uint32, t *directTable, lean bool) ([][]parsed, error) {
	workers := max(1, min(runtime.GOMAXPROCS(0), 4))
	subs, err := snap.Subtrees(root, 4*workers)
	if err != nil {
		return nil, err
	}
	type part struct {
		leaves     []uint32
		rows, size int
		out        []parsed
	}
	parts := make([]part, len(subs))
	err = forEach(len(parts), workers, func(i int) error {
		leaves, err := snap.Leaves(subs[i])
		if err != nil {
			return err
		}
		rows, size, err := snap.Count(leaves)
		parts[i].leaves, parts[i].rows, parts[i].size = leaves, rows, size
		return err
	})
	if err != nil {
		return nil, err
	}
	offs := make([]int, len(parts)+1)
	for i, p := range parts {
		offs[i+1] = offs[i] + p.size
	}
	var buf []byte
	if !lean {
		buf = sqlitefile.Buffer(offs[len(parts)])
	}
	cols, idx := t.cols()
	err = forEach(len(parts), workers, func(i int) error {
		a := sqlitefile.NewScratch()
		if !lean {
			a = sqlitefile.NewArena(buf[offs[i]:offs[i+1]:offs[i+1]])
		}
		out := make([]parsed, 0, parts[i].rows)
		err := snap.ScanLeaves(parts[i].leaves, cols, a, func(_ int64, v []sqlitefile.Value) error {
			key, raw, updated, ok := directRow(v[idx[0]], v[idx[1]], v[idx[2]])
			if !ok {
				return errFallback
			}
			if hidden(key, raw) {
				return nil
			}
			e := parse(key, raw, updated)
			if lean {
				e.e.Raw = nil
			}
			out = append(out, e)
			return nil
		})
		parts[i].out = out
		return err
	})
	if err != nil {
		return nil, err
	}
	outs := make([][]parsed, len(parts))
	for i, p := range parts {
		outs[i] = p.out
	}
	return outs, nil
}

// forEach runs fn(0..n-1) on up to workers goroutines and returns the
// first error (after which no new fn starts).
func forEach(n, workers int, fn func(i int) error) error {
	var next atomic.Int64
	var failed atomic.Bool
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					failed.Store(true)
					once.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// directRow converts a record's values the way the SQL path's Scan does
// (session_key into a string, CAST(entry_json AS BLOB) into bytes,
// updated_at into a NullFloat64); ok is false for any value the SQL path
// would convert or refuse differently — it then reads instead.
func directRow(k, e, u sqlitefile.Value) (key string, raw []byte, updated sql.NullFloat64, ok bool) {
	switch k.Kind {
	case sqlitefile.Text, sqlitefile.Blob:
		key = string(k.Bytes)
	default:
		return "", nil, updated, false
	}
	switch e.Kind {
	case sqlitefile.Text, sqlitefile.Blob:
		raw = e.Bytes
	case sqlitefile.Null:
	default:
		return "", nil, updated, false
	}
	switch u.Kind {
	case sqlitefile.Int:
		updated = sql.NullFloat64{Float64: float64(u.Int), Valid: true}
	case sqlitefile.Float:
		updated = sql.NullFloat64{Float64: u.Float, Valid: true}
	case sqlitefile.Null:
	default:
		return "", nil, updated, false
	}
	return key, raw, updated, true
}

// mainFiles holds one read-only descriptor per database file (device and
// inode) the direct read has mapped, for the life of the process: closing a
// descriptor of a file drops every POSIX lock the process holds on it —
// those of this package's SQLite connections and of internal/sqlitewrite's
// alike — and a process reads a handful of agent databases at most.
var mainFiles fileSet

type fileSet struct {
	sync.Mutex
	m map[fileID]*os.File
}

func (fs *fileSet) add(id fileID, f *os.File) {
	if fs.m == nil {
		fs.m = map[fileID]*os.File{}
	}
	fs.m[id] = f
}

// fileID identifies a file: by device and inode where the platform has
// them, else by path.
type fileID struct {
	dev, ino uint64
	path     string
}

func fileIDOf(path string, fi os.FileInfo) fileID {
	if dev, ino, ok := fsutil.DevIno(fi); ok {
		return fileID{dev: dev, ino: ino}
	}
	return fileID{path: path}
}

// mainFile returns the kept descriptor of the file at path, opening it the
// first time.
func mainFile(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	id := fileIDOf(path, fi)
	mainFiles.Lock()
	defer mainFiles.Unlock()
	if f := mainFiles.m[id]; f != nil {
		return f, nil
	}
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	if ffi, err := f.Stat(); err != nil || fileIDOf(path, ffi) != id {
		// Replaced in between: keep this descriptor too (never close
		// one), under the identity it has, and let the caller retry later.
		if err == nil {
			mainFiles.add(fileIDOf(path, ffi), f)
		}
		return nil, errors.New("sqlitestore: the database file was replaced")
	}
	mainFiles.add(id, f)
	return f, nil
}

// relaxGC lets the heap grow to 5× its live size (GOGC 400) while a read
// builds its entries, and returns the function that puts the setting back
// (the last of concurrent readers to finish restores it). A 10,000-session
// read allocates ~30 MB of small pointer-rich objects in ~100 ms: at the
// default setting the collector runs over them 4-7 times meanwhile, about a
// tenth of the read's CPU, on the CPUs the workers are parsing on.
func relaxGC() (restore func()) {
	gc.Lock()
	defer gc.Unlock()
	if gc.depth == 0 {
		gc.old = debug.SetGCPercent(-1)
		if gc.old < 0 || gc.old >= relaxedGC {
			debug.SetGCPercent(gc.old) // off or already relaxed: leave it
		} else {
			debug.SetGCPercent(relaxedGC)
		}
	}
	gc.depth++
	return func() {
		gc.Lock()
		defer gc.Unlock()
		if gc.depth--; gc.depth == 0 {
			debug.SetGCPercent(gc.old)
		}
	}
}

const relaxedGC = 400

var gc struct {
	sync.Mutex
	depth, old int
}
