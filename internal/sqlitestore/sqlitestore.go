package sqlitestore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/openclaw/sessions/internal/sqlitedb"
	"github.com/openclaw/sessions/internal/sqlitefile"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
)

// FileName is the per-agent database's file name, in <state>/agents/<id>/agent/.
const FileName = sqlitedb.FileName

// DefaultBusyTimeout bounds a read that waits for a writer's lock when
// Options.BusyTimeout is 0 (the CLI's default --lock-timeout).
const DefaultBusyTimeout = 10 * time.Second

// SchemaVersion is the agent-database schema (PRAGMA user_version) this
// package was written against: OpenClaw 2026.9.6 writes 23. Other versions
// are read as long as the tables and columns read here exist.
const SchemaVersion = 23

// ReadSchemaVersion is the newest agent schema this package reads
// completely: 24, written by OpenClaw 2026.9.8, 2026.9.9 and 2026.10.x. It
// is schema 23 plus session_nodes.snapshot_revision and the table
// session_entry_snapshots, which holds an entry's sessionDiffBaseline,
// skillsSnapshot and systemPromptReport beside entry_json; Store and
// EntryRaw put them back into the entry as OpenClaw's reader does. A newer
// schema is read with one warning per store (see Options.Warn).
const ReadSchemaVersion = 24

// ReadSchemaOpenClaw names the OpenClaw releases of ReadSchemaVersion.
const ReadSchemaOpenClaw = "OpenClaw 2026.9.8 to 2026.10.x"

// Path returns where OpenClaw 2026.8+ keeps the sessions of agentID.
func Path(stateDir, agentID string) string { return sqlitedb.AgentPath(stateDir, agentID) }

// Options controls Open.
type Options struct {
	// BusyTimeout bounds how long one read waits for a lock a writer holds
	// (SQLite busy_timeout). Still busy after it: an apperr.Lockf error
	// (exit 11). 0 means DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Warn, when set, receives non-fatal findings: rows left out of Store,
	// unreadable transcript events (once per read), a schema newer than
	// ReadSchemaVersion (once per store and process: a command that opens
	// a store several times says it once).
	Warn func(msg string)
}

// DB is one open agent database. It is safe for use by one goroutine at a
// time (reads are sequential; the CLI never needs more).
type DB struct {
	path string
	opts Options

	mu   sync.Mutex
	conn *sql.DB
	mode openMode
	// stamp is the main file's identity when an immutable connection was
	// opened; a read is only trusted if it is unchanged afterwards.
	stamp fsutil.Stamp

	hasCold bool // the database has session_transcript_cold_archives
	// snapshots: the database has session_entry_snapshots (agent schema
	// 24), whose rows belong back in their entries (Store, EntryRaw).
	snapshots bool
	zdec      *zstd.Decoder

	// direct is what Store needs to read session_nodes straight from the
	// file (nil: always through SQLite); see direct.go.
	direct *directTable
	// directReads counts the reads the direct path did (tests).
	directReads int
	// evTable is what the direct read of transcript_events needs (nil:
	// through SQLite), inspected by the first events read (evInspected).
	// directEvents counts the events reads
	// that began direct, directFallbacks those that SQLite finished
	// (tests). See events_direct.go.
	evTable         *eventsTable
	evKeys, evRows  *sqlitefile.Arena // the direct read's scratch memory
	evInspected     bool
	directEvents    int
	directFallbacks int
	// marks is what TranscriptChanges needs to read
	// transcript_rewrite_watermarks straight from the file (nil: through
	// SQLite), inspected by its first read.
	marks     *directTable
	marksOnce sync.Once
	// marksGens are the generations the direct read last read, and
	// marksStamp the table's sqlitefile.TreeStamp then.
	marksMu    sync.Mutex
	marksGens  map[string]uint64
	marksStamp string

	// stmts: the statements of the reads that run once per session
	// (thousands in one search or index build), prepared on conn once:
	// SQLite's parse of the query was most of such a read. A query asked
	// for inside a transaction (query) is prepared before the next one
	// begins (want), as a statement cannot be prepared on the only
	// connection while a transaction holds it; nil: it could not be, and
	// runs as a plain query.
	stmts map[string]*sql.Stmt
	want  []string
}

// openMode is how the file is opened.
type openMode int

const (
	// modeImmutable: a WAL database whose -wal is absent or empty has every
	// committed page in its main file (a -wal is only emptied after a
	// checkpoint has copied it all back). It is opened with immutable=1: no
	// lock, no -wal/-shm created or touched. A writer that arrives meanwhile
	// appends to the -wal and leaves the main file alone until it
	// checkpoints; a checkpoint during the read changes the main file's
	// stamp and the read is redone.
	modeImmutable openMode = iota
	// modeReadOnly: mode=ro with query_only and a busy_timeout. Used for a
	// WAL database whose -wal holds frames (readers share it through the
	// -shm as any OpenClaw reader does, and create neither) and for
	// rollback-journal databases (a reader takes only a shared lock).
	modeReadOnly
)

func (m openMode) String() string {
	if m == modeImmutable {
		return "immutable"
	}
	return "read-only"
}

// immutableRetries is how often a read of a quiescent database is redone
// when a checkpoint changed the file under it, before falling back to a
// locking read-only connection.
const immutableRetries = 3

// Open opens <agentDir>/openclaw-agent.sqlite strictly read-only: never a
// write, never a write transaction (query_only), no file created or left
// behind when the database is quiescent (see modeImmutable), reads bounded by
// Options.BusyTimeout. It checks that the file is a SQLite database with the
// tables this package reads. Errors: missing, unreadable, not SQLite,
// corrupt or without the session tables → apperr.Statef (exit 10); still
// locked after the bound → apperr.Lockf (exit 11).
//
// Only session tables are ever read (session_nodes, transcript_events,
// session_transcript_cold_archives, sqlite_master); never credential tables
// (auth_profile_*).
func Open(path string, opts Options) (*DB, error) {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = DefaultBusyTimeout
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, apperr.Statef("cannot read OpenClaw SQLite store %s: %w", path, err)
	}
	db := &DB{path: abs, opts: opts}
	if err := db.open(); err != nil {
		return nil, err
	}
	if err := db.checkSchema(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Path is the database file.
func (db *DB) Path() string { return db.path }

// Close closes the database. It never removes or changes a file.
func (db *DB) Close() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.zdec != nil {
		db.zdec.Close()
		db.zdec = nil
	}
	if db.conn == nil {
		return nil
	}
	db.closeStmts()
	err := db.conn.Close()
	db.conn = nil
	return err
}

// closeStmts closes the statements prepared on conn (mu held), before conn
// is closed or replaced.
func (db *DB) closeStmts() {
	for _, st := range db.stmts {
		if st != nil {
			st.Close()
		}
	}
	db.stmts, db.want = nil, nil
}

// query runs q in tx (mu held, inside read) with its prepared statement
// once there is one; the first time, as a plain query, and q is prepared
// before the next read's transaction.
func (db *DB) query(tx *sql.Tx, q string, args ...any) (*sql.Rows, error) {
	st, ok := db.stmts[q]
	switch {
	case st != nil:
		return tx.Stmt(st).Query(args...)
	case !ok && !slices.Contains(db.want, q):
		db.want = append(db.want, q)
	}
	return tx.Query(q, args...)
}

// prepare prepares the statements query asked for (mu held, no
// transaction open).
func (db *DB) prepare() {
	for _, q := range db.want {
		st, err := db.conn.Prepare(q)
		if err != nil {
			st = nil // the query says why itself, each time it runs
		}
		if db.stmts == nil {
			db.stmts = map[string]*sql.Stmt{}
		}
		db.stmts[q] = st
	}
	db.want = db.want[:0]
}

// sqliteMagic starts every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// open (re)opens the connection, choosing the mode from the files on disk.
func (db *DB) open() error {
	if db.conn != nil {
		db.closeStmts()
		db.conn.Close()
		db.conn = nil
	}
	// Neither this open nor the driver's may block: the database and the
	// files SQLite opens beside it must be regular files.
	if err := sqlitedb.CheckFiles(db.path); err != nil {
		return err
	}
	f, err := fsutil.OpenRegular(db.path)
	if err != nil {
		return db.fileErr(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return db.fileErr(err)
	}
	hdr := make([]byte, 100)
	n, err := io.ReadFull(f, hdr)
	f.Close()
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return db.fileErr(err)
	}
	if n < len(hdr) || !bytes.Equal(hdr[:16], []byte(sqliteMagic)) {
		if n == 0 {
			return apperr.Statef("OpenClaw SQLite store %s is corrupt: the file is empty", db.path)
		}
		return apperr.Statef("OpenClaw SQLite store %s is corrupt: not a SQLite 3 database", db.path)
	}
	wal := hdr[18] == 2 && hdr[19] == 2
	// The main file was stamped above, before the -wal is looked at: a
	// checkpoint that completes in between changes the stamp.
	wfi, walErr := os.Lstat(db.path + "-wal")
	walEmpty := errors.Is(walErr, fs.ErrNotExist) || walErr == nil && wfi.Mode().IsRegular() && wfi.Size() == 0
	db.mode = modeReadOnly
	if wal && walEmpty {
		db.mode = modeImmutable
		db.stamp = fsutil.StampOf(fi)
	}
	conn, err := sql.Open("sqlite", db.dsn())
	if err != nil {
		return db.mapErr(err, "open")
	}
	conn.SetMaxOpenConns(1)
	conn.SetMaxIdleConns(1)
	conn.SetConnMaxLifetime(0)
	db.conn = conn
	return nil
}

func (db *DB) dsn() string {
	mode := sqlitedb.ReadOnly
	if db.mode == modeImmutable {
		mode = sqlitedb.Immutable
	}
	// trusted_schema=OFF: no function in the database's schema (views,
	// triggers, defaults) runs with side effects while we read.
	return sqlitedb.DSN(db.path, sqlitedb.DSNOptions{Mode: mode, BusyTimeout: db.opts.BusyTimeout, Pragmas: []string{"trusted_schema(0)"}})
}

func (db *DB) fileErr(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return apperr.Statef("OpenClaw SQLite store %s does not exist", db.path).Wrap(fs.ErrNotExist)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return apperr.Statef("cannot read OpenClaw SQLite store %s: %v", db.path, err).Wrap(err)
}

// mapErr turns a driver error into the CLI's typed errors.
func (db *DB) mapErr(err error, what string) error {
	return sqlitedb.MapError(err, db.path, sqlitedb.Read, db.opts.BusyTimeout, what)
}

// read runs fn in one read transaction (one consistent snapshot for all of
// its statements). For an immutable connection it then checks that no
// checkpoint changed the main file during the read; if one did, the read is
// redone (reopening in whichever mode the files now call for).
func (db *DB) read(what string, fn func(tx *sql.Tx) error) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.conn == nil {
		return apperr.Errorf("OpenClaw SQLite store %s is closed", db.path)
	}
	for attempt := 1; ; attempt++ {
		if db.mode == modeImmutable && db.walWritten() {
			// A writer has committed since the open: its commits are in the
			// -wal, which an immutable connection never reads (a follow would
			// wait for them forever). Reopen as the files now call for.
			if oerr := db.open(); oerr != nil {
				return oerr
			}
		}
		err := db.readOnce(what, fn)
		if db.mode != modeImmutable {
			return err
		}
		if fi, serr := os.Stat(db.path); serr == nil && fsutil.StampOf(fi).Equal(db.stamp) {
			return err // the file as it was when opened: trusted, error or not
		}
		// A checkpoint changed the file under the immutable read: the result
		// may mix two versions. Redo it on a fresh connection, as the files
		// now call for; after immutableRetries, with a locking connection.
		if attempt >= immutableRetries {
			if oerr := db.reopenAs(modeReadOnly); oerr != nil {
				return oerr
			}
			return db.readOnce(what, fn)
		}
		if oerr := db.open(); oerr != nil {
			return oerr
		}
	}
}

// walWritten reports whether the -wal, empty or absent when the
// connection was opened immutable, now holds frames.
func (db *DB) walWritten() bool {
	fi, err := os.Lstat(db.path + "-wal")
	return err == nil && fi.Mode().IsRegular() && fi.Size() > 0
}

// reopenAs reopens the connection in a given mode.
func (db *DB) reopenAs(m openMode) error {
	if db.conn != nil {
		db.closeStmts()
		db.conn.Close()
	}
	db.mode = m
	if err := sqlitedb.CheckFiles(db.path); err != nil {
		return err
	}
	conn, err := sql.Open("sqlite", db.dsn())
	if err != nil {
		return db.mapErr(err, "open")
	}
	conn.SetMaxOpenConns(1)
	db.conn = conn
	return nil
}

func (db *DB) readOnce(what string, fn func(tx *sql.Tx) error) error {
	ctx := context.Background()
	if len(db.want) > 0 {
		db.prepare()
	}
	tx, err := db.conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return db.mapErr(err, what)
	}
	defer tx.Rollback() // a read transaction: nothing to commit
	if err := fn(tx); err != nil {
		return db.mapErr(err, what)
	}
	return nil
}

// required lists the tables and columns read here; a database without them
// is not one this version can read.
var required = map[string][]string{
	"session_nodes":     {"session_key", "current_session_id", "entry_json", "updated_at"},
	"transcript_events": {"session_id", "seq", "event_json", "event_zstd", "event_utf8_bytes"},
}

// checkSchema verifies the file is an OpenClaw agent database this package
// can read (and is readable at all: a corrupt or locked file fails here).
func (db *DB) checkSchema() error {
	var version int64
	var cold, snapshots bool
	var direct *directTable
	err := db.read("schema check", func(tx *sql.Tx) error {
		if err := tx.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
			return err
		}
		for table, cols := range required {
			have := map[string]bool{}
			rows, err := tx.Query("SELECT name FROM pragma_table_info(?)", table)
			if err != nil {
				return err
			}
			for rows.Next() {
				var name string
				if err := rows.Scan(&name); err != nil {
					rows.Close()
					return err
				}
				have[name] = true
			}
			if err := rows.Close(); err != nil {
				return err
			}
			if len(have) == 0 {
				return apperr.Statef("%s is not an OpenClaw agent database this version of sessions can read: no table %s (schema version %d)", db.path, table, version)
			}
			for _, c := range cols {
				if !have[c] {
					return apperr.Statef("%s is not an OpenClaw agent database this version of sessions can read: table %s has no column %s (schema version %d)", db.path, table, c, version)
				}
			}
		}
		if err := tx.QueryRow("SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'session_transcript_cold_archives'").Scan(&cold); err != nil {
			return err
		}
		if err := tx.QueryRow("SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'session_entry_snapshots'").Scan(&snapshots); err != nil {
			return err
		}
		direct = directTableOf(tx, "session_nodes", nodeCols...)
		return nil
	})
	if err != nil {
		return err
	}
	db.hasCold = cold
	db.direct = direct
	db.snapshots = snapshots
	if version > ReadSchemaVersion && db.opts.Warn != nil {
		if _, told := warnedNewer.LoadOrStore(db.path, true); !told {
			db.opts.Warn(fmt.Sprintf("OpenClaw SQLite store %s has schema version %d, newer than %d (%s), the newest this version of sessions knows: reading what it knows, never writing it directly (writes go through the running gateway; a newer sessions reads it completely)", db.path, version, ReadSchemaVersion, ReadSchemaOpenClaw))
		}
	}
	return nil
}

// warnedNewer holds the paths whose newer-schema warning was given: once
// per store for the process, i.e. per command.
var warnedNewer sync.Map

// decoder returns the zstd decoder (one per DB, created on first use).
func (db *DB) decoder() (*zstd.Decoder, error) {
	if db.zdec == nil {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxColdArchiveBytes))
		if err != nil {
			return nil, err
		}
		db.zdec = d
	}
	return db.zdec, nil
}
