package sqlitedb

import (
	"context"
	"database/sql"
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ProbeWriteLock reports whether another connection holds the write lock of
// the database at path right now. It opens its own connection (mode=rw,
// never creating the file, busy_timeout 0), tries BEGIN IMMEDIATE once
// without waiting and, when that succeeds, rolls it back at once: nothing is
// written, no journal mode or other setting is changed, and the lock is held
// for the time of one ROLLBACK. locked is true when SQLite answers busy.
//
// Call CheckFiles first. It is meant for a database another process has
// open: on a quiescent one its connection would be the last to close, which
// in WAL mode checkpoints (the -wal is kept: SQLITE_FCNTL_PERSIST_WAL).
func ProbeWriteLock(ctx context.Context, path string) (locked bool, err error) {
	db, err := sql.Open("sqlite", DSN(path, DSNOptions{Mode: ReadWrite}))
	if err != nil {
		return false, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	c, err := db.Conn(ctx)
	if err != nil {
		return busy(err), nilIfBusy(err)
	}
	defer c.Close()
	// Keep the -wal when this connection closes last: OpenClaw's gateway
	// kills itself when its -wal is replaced.
	if err := c.Raw(func(dc any) error {
		if fc, ok := dc.(sqlite.FileControl); ok {
			_, err := fc.FileControlPersistWAL("main", 1)
			return err
		}
		return nil
	}); err != nil {
		return false, err
	}
	if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return busy(err), nilIfBusy(err)
	}
	_, err = c.ExecContext(ctx, "ROLLBACK")
	return false, err
}

func busy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return true
		}
	}
	return false
}

func nilIfBusy(err error) error {
	if busy(err) {
		return nil
	}
	return err
}
