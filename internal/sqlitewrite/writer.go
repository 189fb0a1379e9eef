package sqlitewrite

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
	"time"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/sqlitedb"

	"modernc.org/sqlite"

	"github.com/openclaw/sessions/internal/apperr"
)

// FileName is the per-agent database's file name.
const FileName = sqlitedb.FileName

// Path is where OpenClaw 2026.8+ keeps the sessions of agentID.
func Path(stateDir, agentID string) string { return sqlitedb.AgentPath(stateDir, agentID) }

// DefaultLockTimeout bounds the wait for SQLite's write lock when
// Options.LockTimeout is 0.
const DefaultLockTimeout = 10 * time.Second

// Options controls Open.
type Options struct {
	// LockTimeout bounds each wait for the database's write lock
	// (busy_timeout); still busy after it: apperr.Lockf (exit 11).
	LockTimeout time.Duration
	// Now is the clock (tests); time.Now when nil.
	Now func() time.Time
	// Hooks for tests: called inside each write transaction just before
	// COMMIT (crash injection, lock-hold measurement).
	BeforeCommit func()
}

// Writer is one agent database opened for writing. Not safe for concurrent
// use; one logical step at a time.
type Writer struct {
	path     string
	stateDir string
	agentID  string
	opts     Options
	conn     *sql.DB
	cookie   int64 // schema_version when the schema was checked
	lastHold time.Duration
	// keepWAL: a -wal was beside the database at Open; Close keeps it
	// (and the -shm) instead of letting SQLite's last-connection close
	// delete them.
	keepWAL bool
	// embedded are the embedded agent turns (`openclaw agent --local`)
	// running beside us, as found right before the current write step;
	// checkIdle keeps their sessions out of reach.
	embedded []Holder
	// left are the (updated_at, window stamp) our last step left on each
	// session written while an embedded agent ran (see remember).
	left map[string][2]int64
	// stmts are the write steps' statements, prepared once (see stx);
	// wanted those to prepare before the next step.
	stmts  map[string]*sql.Stmt
	wanted map[string]bool
	// pageSize is the database's page size (checkpointAfter).
	pageSize int64
}

// LastLockHold is how long the last write transaction held the database's
// write lock (BEGIN IMMEDIATE until COMMIT returned): what a gateway's
// event loop would wait on us.
func (w *Writer) LastLockHold() time.Duration { return w.lastHold }

// Open checks the preconditions (see the package comment) and opens the
// database of agentID in stateDir for writing. It writes nothing.
func Open(stateDir, agentID string, opts Options) (*Writer, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	p, err := filepath.Abs(Path(stateDir, agentID))
	if err != nil {
		return nil, apperr.Statef("cannot resolve %s: %v", Path(stateDir, agentID), err)
	}
	if err := checkFile(p); err != nil {
		return nil, err
	}
	w := &Writer{path: p, stateDir: stateDir, agentID: agentID, opts: opts}
	if err := w.admit(); err != nil {
		return nil, err
	}
	if err := checkSQLiteLibrary(); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(p + "-wal"); err == nil {
		w.keepWAL = true
	}
	// The schema is checked first on a read-only connection: a database
	// refused here gets no byte written and, when quiescent, no -wal/-shm.
	cookie, err := w.checkReadOnly()
	if err != nil {
		return nil, err
	}
	w.cookie = cookie
	if err := sqlitedb.CheckFiles(w.path); err != nil {
		return nil, err
	}
	conn, err := sql.Open("sqlite", w.dsn())
	if err != nil {
		return nil, w.mapErr(err, "open")
	}
	conn.SetMaxOpenConns(1)
	conn.SetMaxIdleConns(1)
	conn.SetConnMaxLifetime(0)
	conn.SetConnMaxIdleTime(0)
	w.conn = conn
	return w, nil
}

// admit looks for the OpenClaw processes that hold the state dir, right
// before Open and before every write step (a gateway may have started while
// we waited on a model): any but an embedded agent turn is a refusal; those
// are kept for checkIdle.
func (w *Writer) admit() error {
	hs, err := Holders(w.stateDir, w.path, w.opts.Now())
	if err != nil {
		return err
	}
	if b := Blocking(hs); len(b) > 0 {
		return HeldError(w.stateDir, b)
	}
	w.embedded = hs
	return nil
}

// checkReadOnly runs checkSchema on a read-only connection: immutable when
// immutableOK (every committed page is in the main file; no lock, no
// -wal/-shm created), else an ordinary mode=ro reader.
func (w *Writer) checkReadOnly() (int64, error) {
	mode := sqlitedb.ReadOnly
	if immutableOK(w.path, len(w.embedded) > 0) {
		mode = sqlitedb.Immutable
	}
	if err := sqlitedb.CheckFiles(w.path); err != nil {
		return 0, err
	}
	conn, err := sql.Open("sqlite", sqlitedb.DSN(w.path, sqlitedb.DSNOptions{Mode: mode, BusyTimeout: w.opts.LockTimeout}))
	if err != nil {
		return 0, w.mapErr(err, "schema check")
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	tx, err := conn.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, w.mapErr(err, "schema check")
	}
	defer tx.Rollback()
	c, err := checkSchema(tx, w.path, w.agentID)
	return c, w.mapErr(err, "schema check")
}

// checkFile refuses a missing or non-SQLite file before SQLite sees it.
func checkFile(p string) error {
	f, err := fsutil.OpenRegular(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return apperr.Statef("OpenClaw SQLite store %s does not exist", p).Wrap(fs.ErrNotExist)
		}
		return apperr.Statef("cannot open OpenClaw SQLite store %s: %v", p, err)
	}
	hdr := make([]byte, 16)
	n, _ := io.ReadFull(f, hdr)
	f.Close()
	if n < 16 || !bytes.Equal(hdr, []byte("SQLite format 3\x00")) {
		return apperr.Statef("OpenClaw SQLite store %s is corrupt: not a SQLite 3 database", p)
	}
	return nil
}

// checkSQLiteLibrary refuses SQLite builds OpenClaw refuses (the WAL-reset
// bug: 3.51.3+, 3.50.7+ or 3.44.6+ within their lines) and anything below
// 3.43 (octet_length in transcript_events' CHECK).
func checkSQLiteLibrary() error {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return apperr.Statef("cannot start SQLite: %v", err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRow("SELECT sqlite_version()").Scan(&v); err != nil {
		return apperr.Statef("cannot start SQLite: %v", err)
	}
	if !walResetSafe(v) {
		return apperr.Statef("the SQLite library %s is not one OpenClaw %s writes with (WAL-reset fix: 3.44.6+ on 3.44, 3.50.7+ on 3.50, 3.51.3+)", v, OpenClawVersion)
	}
	return nil
}

// walResetSafe is OpenClaw's isSqliteWalResetSafeVersion (node-sqlite):
// 3.51.3+, or 3.50.7+ / 3.44.6+ within their lines; every one of those is
// also 3.43+ (octet_length).
func walResetSafe(v string) bool {
	var a, b, c int
	if n, _ := fmt.Sscanf(v, "%d.%d.%d", &a, &b, &c); n != 3 {
		return false
	}
	return a > 3 || a == 3 && (b > 51 || b == 51 && c >= 3 || b == 50 && c >= 7 || b == 44 && c >= 6)
}

// Path is the database file.
func (w *Writer) Path() string { return w.path }

// Close closes the connection. It removes no file itself, and leaves the
// -wal/-shm as Open found them: closing the last connection of a WAL
// database makes SQLite checkpoint it and delete both files; when a -wal
// was there at Open, the connection is switched to persistent WAL
// (SQLITE_FCNTL_PERSIST_WAL) with journal_size_limit 0 first, so the
// checkpointed -wal is truncated to 0 bytes and both files stay — the
// state OpenClaw 2026.9.6 leaves after any command. A database that had
// none gets none left behind.
func (w *Writer) Close() error {
	if w.conn == nil {
		return nil
	}
	w.closeStmts()
	var kerr error
	if w.keepWAL {
		kerr = w.persistWAL()
	}
	err := w.conn.Close()
	w.conn = nil
	if err == nil && kerr != nil {
		err = apperr.Statef("cannot keep the -wal/-shm of %s: %v", w.path, kerr)
	}
	return err
}

// persistWAL sets SQLITE_FCNTL_PERSIST_WAL and journal_size_limit 0 on the
// writer's one connection, right before it closes.
func (w *Writer) persistWAL() error {
	ctx := context.Background()
	c, err := w.conn.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "PRAGMA journal_size_limit = 0"); err != nil {
		return err
	}
	return c.Raw(func(dc any) error {
		fc, ok := dc.(sqlite.FileControl)
		if !ok {
			return errors.New("the SQLite driver has no file control")
		}
		_, err := fc.FileControlPersistWAL("main", 1)
		return err
	})
}

func (w *Writer) dsn() string {
	// no checkpoint inside COMMIT: checkpointAfter runs it once the write
	// lock is released (see there)
	return sqlitedb.DSN(w.path, sqlitedb.DSNOptions{Mode: sqlitedb.ReadWrite, BusyTimeout: w.opts.LockTimeout,
		Pragmas: []string{"synchronous(NORMAL)", "wal_autocheckpoint(0)"}})
}

// read runs fn in a read-only deferred transaction.
func (w *Writer) read(fn func(tx dbtx) error) error {
	ctx := context.Background()
	tx, err := w.conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return w.mapErr(err, "read")
	}
	defer tx.Rollback()
	return w.mapErr(fn(tx), "read")
}

// errAlreadyDone makes write roll back and report success: the step was
// already committed (a retry after a crash).
var errAlreadyDone = errors.New("already done")

// write runs fn in one BEGIN IMMEDIATE transaction, after checking that the
// schema is the one checked at Open (cookie, user_version, foreign_keys).
func (w *Writer) write(what string, fn func(tx dbtx) error) (already bool, err error) {
	if w.conn == nil {
		return false, apperr.Errorf("OpenClaw SQLite store %s is closed", w.path)
	}
	if err := w.admit(); err != nil {
		return false, err
	}
	w.prepareWanted()
	ctx := context.Background()
	tx, err := w.conn.BeginTx(ctx, nil) // _txlock=immediate: BEGIN IMMEDIATE
	if err != nil {
		return false, w.mapErr(err, what)
	}
	locked := time.Now()
	defer func() {
		if w.lastHold < 0 {
			w.lastHold = time.Since(locked) // rolled back
		}
	}()
	w.lastHold = -1
	defer tx.Rollback()
	t := stx{Tx: tx, w: w}
	var cookie, fk, uv int64
	if err := t.QueryRow("PRAGMA schema_version").Scan(&cookie); err != nil {
		return false, w.mapErr(err, what)
	}
	if cookie != w.cookie {
		// Redefined since Open: check it again, inside the lock.
		c, err := checkSchema(tx, w.path, w.agentID)
		if err != nil {
			return false, w.mapErr(err, what)
		}
		w.cookie = c
	} else {
		if err := t.QueryRow("PRAGMA user_version").Scan(&uv); err != nil {
			return false, w.mapErr(err, what)
		}
		if uv != SchemaVersion {
			_, err := checkSchema(tx, w.path, w.agentID)
			return false, w.mapErr(err, what)
		}
	}
	if err := t.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		return false, apperr.Statef("cannot enable foreign keys on %s: refusing to write", w.path)
	}
	if err := fn(t); err != nil {
		if errors.Is(err, errAlreadyDone) {
			return true, nil
		}
		return false, w.mapErr(err, what)
	}
	if w.opts.BeforeCommit != nil {
		w.opts.BeforeCommit()
	}
	if err := tx.Commit(); err != nil {
		return false, w.mapErr(err, what)
	}
	w.lastHold = time.Since(locked)
	w.checkpointAfter()
	return false, nil
}

// walCheckpointPages is SQLite's (and OpenClaw's) wal_autocheckpoint.
const walCheckpointPages = 1000

// checkpointAfter is SQLite's auto-checkpoint moved after COMMIT: a PASSIVE
// checkpoint (it never blocks a writer nor waits on a reader) once the -wal
// holds walCheckpointPages pages, as OpenClaw's own connections run it.
// SQLite runs it inside the COMMIT call, after the write lock is released;
// timing it there made a turn's measured hold ~30 ms every ~100 turns
// (copying ~4 MB into the database) though no writer waited on it.
func (w *Writer) checkpointAfter() {
	fi, err := os.Stat(w.path + "-wal")
	if err != nil {
		return
	}
	if w.pageSize == 0 {
		if err := w.conn.QueryRow("PRAGMA page_size").Scan(&w.pageSize); err != nil || w.pageSize <= 0 {
			w.pageSize = 4096
		}
	}
	if fi.Size() < walCheckpointPages*(w.pageSize+24) {
		return
	}
	_, _ = w.conn.Exec("PRAGMA wal_checkpoint(PASSIVE)")
}

// mapErr turns driver errors into the CLI's typed errors.
func (w *Writer) mapErr(err error, what string) error {
	return sqlitedb.MapError(err, w.path, sqlitedb.Write, w.opts.LockTimeout, what)
}
