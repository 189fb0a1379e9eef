package sqlitestore

import (
	"bytes"
	"database/sql"
	"errors"

	"github.com/openclaw/sessions/internal/mapfile"
	"github.com/openclaw/sessions/internal/sqlitefile"
)

// The direct read of a session's events: its transcript_events rows found
// through the table's primary key index (session_id, seq) and read from the
// table, straight from the database file (internal/sqlitefile), instead of
// stepping SQLite's range query over the same two b-trees.
//
// Why: a first build of the search index reads every event of every
// session; on a 2 GB store the rows through modernc.org/sqlite and
// database/sql cost ~3 µs each, ~14% of a both-era build's CPU
// (docs/PERFORMANCE.md).
//
// What it reads must be what SQLite's read transaction of the same call
// sees, because the call also reads through SQLite (a cold archive, a
// cursor's event): the snapshot is taken before the transaction's first
// statement, and used only when, once that statement has fixed SQLite's
// view, the files show no commit since the snapshot (sqlitefile.Latest;
// for a connection opened immutable, which never reads a -wal: no -wal
// frames in the snapshot either). The rest of direct.go's rules hold: the
// table's definition, its index and their root pages are checked in both
// schemas; a value of a kind the SQL path would convert, a row the index
// names and the table lacks, or any error of the file reader hands the rest
// of the read to SQLite, from the seq after the last event given (the
// views being the same, what SQLite returns from there is what the direct
// read would have). Only forward reads go direct: a history page's
// backward read of its last messages is a few rows.

// eventCols are the columns of transcript_events an events read reads, in
// the order of scanEvent's.
var eventCols = []string{"seq", "event_json", "event_zstd", "event_utf8_bytes"}

// eventsTable is what the direct read of transcript_events needs.
type eventsTable struct {
	t     *directTable
	index string // the primary key's index
	iroot int64
	// checked: a snapshot whose schema cookie was cookie held the table
	// and index as inspected, in its own schema.
	checked bool
	cookie  uint32
}

// eventsTableOf inspects transcript_events and its primary key index in
// transaction tx; nil when the direct read cannot be used (see
// directTableOf; and the index must be SQLite's own for PRIMARY KEY
// (session_id, seq): both columns BINARY and ascending, then the rowid).
func eventsTableOf(tx *sql.Tx) *eventsTable {
	t := directTableOf(tx, "transcript_events", eventCols...)
	if t == nil {
		return nil
	}
	e := &eventsTable{t: t}
	if err := tx.QueryRow(`SELECT name FROM pragma_index_list('transcript_events') WHERE origin = 'pk' AND "unique" = 1 AND partial = 0`).Scan(&e.index); err != nil {
		return nil
	}
	var root sql.NullInt64
	var tbl string
	var def sql.NullString
	if err := tx.QueryRow(`SELECT rootpage, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND name = ?`, e.index).Scan(&root, &tbl, &def); err != nil || !root.Valid || tbl != "transcript_events" || def.Valid {
		return nil
	}
	e.iroot = root.Int64
	rows, err := tx.Query(`SELECT cid, name, "desc", coll, "key" FROM pragma_index_xinfo(?) ORDER BY seqno`, e.index)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var cid, desc, key int
		var name, coll sql.NullString
		if err := rows.Scan(&cid, &name, &desc, &coll, &key); err != nil {
			return nil
		}
		if key == 0 {
			if cid != -1 {
				return nil // only the rowid follows the key
			}
			got = append(got, "rowid")
			continue
		}
		if desc != 0 || coll.String != "BINARY" {
			return nil
		}
		got = append(got, name.String)
	}
	if rows.Err() != nil || len(got) != 3 || got[0] != "session_id" || got[1] != "seq" || got[2] != "rowid" {
		return nil
	}
	return e
}

// eventsSnapshot takes the snapshot of the database file a read's events
// may be read from, before the read's first statement (nil: the SQL path).
func (db *DB) eventsSnapshot() *sqlitefile.Snapshot {
	if !directOn() || db.evInspected && db.evTable == nil || !mapfile.Mmap {
		// Where files are not mapped a snapshot reads the whole
		// database: for each session, far more than SQLite reads.
		return nil
	}
	main, err := mainFile(db.path)
	if err != nil {
		return nil
	}
	snap, err := sqlitefile.Open(db.path, main)
	if err != nil {
		return nil
	}
	return snap
}

// closeSnap closes a snapshot eventsSnapshot took, if it took one.
func closeSnap(s *sqlitefile.Snapshot) {
	if s != nil {
		s.Close()
	}
}

// eventRange is the rows of one session an events read asks for: key
// (session_id, seq) with from ≤ seq < before.
type eventRange struct {
	id           []byte
	from, before int64
}

func (r *eventRange) Compare(key []sqlitefile.Value) (int, error) {
	if key[0].Kind != sqlitefile.Text || key[1].Kind != sqlitefile.Int {
		return 0, errFallback // STRICT columns: nothing else is stored
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

// hotDirect is the direct read of one events read's hot rows.
type hotDirect struct {
	cur  *sqlitefile.IndexCursor
	rows *sqlitefile.RowReader
	idx  []int // where each of eventCols is among the columns read
}

// startDirect begins the hot rows' direct read from s.pre, the snapshot
// taken before the read's first statement; false: read them through
// SQLite.
func (s *events) startDirect() bool {
	db, snap := s.db, s.pre
	if snap == nil || s.backward {
		return false
	}
	if !db.evInspected {
		db.evInspected = true
		db.evTable = eventsTableOf(s.tx)
	}
	e := db.evTable
	if e == nil {
		return false
	}
	// SQLite's schema, in this transaction (whose view this statement
	// fixes, if none did before), then the file's.
	troot, tdef, iroot, ok := s.schemaRoots(e.index)
	if !ok || troot != e.t.root || tdef != e.t.sql || iroot != e.iroot {
		return false
	}
	// The file's schema: read again only when its cookie changed.
	cookie, err := snap.SchemaCookie()
	if err != nil {
		return false
	}
	if !e.checked || cookie != e.cookie {
		e.checked = false
		froot, fdef, found, err := snap.Table("transcript_events")
		if err != nil || !found || int64(froot) != troot || fdef != tdef {
			return false
		}
		fiRoot, ftable, fidef, found, err := snap.Index(e.index)
		if err != nil || !found || int64(fiRoot) != iroot || ftable != "transcript_events" || fidef != "" {
			return false
		}
		e.checked, e.cookie = true, cookie
	}
	froot, fiRoot := uint32(troot), uint32(iroot)
	// The same view as SQLite's.
	if db.mode == modeImmutable {
		if snap.HasWAL() || !snap.Unchanged() {
			return false
		}
	} else if !snap.Latest() {
		return false
	}
	cols, idx := e.t.cols()
	// Scratch memory kept by the DB between reads (one runs at a time:
	// db.mu): a new scratch arena's first 64 KiB, twice per session, was
	// most of what a build's events reads allocated.
	if db.evKeys == nil {
		db.evKeys, db.evRows = sqlitefile.NewScratch(), sqlitefile.NewScratch()
	}
	a := &sqlitefile.Arena{}
	if s.scratch {
		a = db.evRows
	}
	rng := &eventRange{id: []byte(s.sessionID), from: s.from, before: s.upper()}
	s.direct = &hotDirect{
		cur:  snap.SeekIndex(fiRoot, 3, rng, db.evKeys),
		rows: snap.Rows(froot, cols, a),
		idx:  idx,
	}
	db.directEvents++
	return true
}

// schemaRoots asks SQLite's schema, in the read's transaction, for
// transcript_events' root page and definition and the root page of its
// index (a statement prepared once, as the per-session reads' are).
func (s *events) schemaRoots(index string) (troot int64, tdef string, iroot int64, ok bool) {
	rows, err := s.db.query(s.tx, `SELECT (SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = 'transcript_events'),
		(SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'transcript_events'),
		(SELECT rootpage FROM sqlite_master WHERE type = 'index' AND name = ?)`, index)
	if err != nil {
		return 0, "", 0, false
	}
	defer rows.Close()
	if !rows.Next() || rows.Scan(&troot, &tdef, &iroot) != nil {
		return 0, "", 0, false
	}
	return troot, tdef, iroot, true
}

// next reads the next hot row directly; ok false with a nil error at
// the end of the session's rows; errFallback when SQLite must read the rest.
func (h *hotDirect) next() (ev event, ok bool, err error) {
	key, ok := h.cur.Next()
	if !ok {
		if h.cur.Err() != nil {
			return event{}, false, errFallback
		}
		return event{}, false, nil
	}
	if key[2].Kind != sqlitefile.Int {
		return event{}, false, errFallback
	}
	vals, found, err := h.rows.Row(key[2].Int)
	if err != nil || !found {
		return event{}, false, errFallback
	}
	seq, js, zs, n := vals[h.idx[0]], vals[h.idx[1]], vals[h.idx[2]], vals[h.idx[3]]
	if seq.Kind != sqlitefile.Int || seq.Int != key[1].Int {
		return event{}, false, errFallback
	}
	var body, z []byte
	var size sql.NullInt64
	switch js.Kind {
	case sqlitefile.Text:
		body = js.Bytes
	case sqlitefile.Null:
	default:
		return event{}, false, errFallback
	}
	switch zs.Kind {
	case sqlitefile.Blob:
		z = zs.Bytes
	case sqlitefile.Null:
	default:
		return event{}, false, errFallback
	}
	switch n.Kind {
	case sqlitefile.Int:
		size = sql.NullInt64{Int64: n.Int, Valid: true}
	case sqlitefile.Null:
	default:
		return event{}, false, errFallback
	}
	return eventOf(seq.Int, body, z, size), true, nil
}

// fillDirect is fill from the direct read; on errFallback the rest of the
// hot rows are read through SQLite, after the last one given.
func (s *events) fillDirect() error {
	ev, ok, err := s.direct.next()
	switch {
	case errors.Is(err, errFallback):
		s.direct = nil
		s.db.directFallbacks++
		if s.hasHot {
			s.from = max(s.from, s.lastHot+1)
		}
		if err := s.startSQL(); err != nil {
			return err
		}
		return s.fill()
	case err != nil:
		return err
	case !ok:
		s.hotDone = true
		return nil
	}
	s.hot = &ev
	return nil
}
