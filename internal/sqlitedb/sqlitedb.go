// Package sqlitedb is the one place that knows where OpenClaw 2026.8+ keeps
// its SQLite databases, how we open them (the DSN: read-only, immutable or
// read-write, busy timeout, pragmas) and how a driver error becomes one of
// our typed errors (exit 11 for a lock held too long, 10 for a damaged or
// unreadable store). The reader (internal/sqlitestore) and the writer
// (internal/sqlitewrite) both use it.
package sqlitedb

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
)

// FileName is the per-agent database's file name, in <state>/agents/<id>/agent/.
const FileName = "openclaw-agent.sqlite"

// AgentPath is where OpenClaw 2026.8+ keeps the sessions of agentID.
func AgentPath(stateDir, agentID string) string {
	return filepath.Join(stateDir, "agents", agentID, "agent", FileName)
}

// StatePath is OpenClaw 2026.8+'s shared state database,
// <state>/state/openclaw.sqlite (sub-agent registry, cron, devices,
// migration receipts, leases).
func StatePath(stateDir string) string {
	return filepath.Join(stateDir, "state", "openclaw.sqlite")
}

// Mode is how a database is opened.
type Mode int

const (
	// ReadOnly: mode=ro with query_only — an ordinary reader that takes
	// SQLite's shared locks and shares a live writer's -wal.
	ReadOnly Mode = iota
	// Immutable: immutable=1 with query_only — no lock, no -wal/-shm
	// created; only for a quiescent database (every committed page in the
	// main file).
	Immutable
	// ReadWrite: mode=rw (the file is never created), BEGIN IMMEDIATE
	// transactions, foreign keys on.
	ReadWrite
)

// DSNOptions shape a DSN.
type DSNOptions struct {
	Mode        Mode
	BusyTimeout time.Duration
	// Pragmas are more `_pragma` values, e.g. "trusted_schema(0)".
	Pragmas []string
}

// DSN is the modernc.org/sqlite data source name of the database at path.
func DSN(path string, o DSNOptions) string {
	q := url.Values{}
	ms := fmt.Sprint(o.BusyTimeout.Milliseconds())
	switch o.Mode {
	case Immutable, ReadOnly:
		if o.Mode == Immutable {
			q.Set("immutable", "1")
		} else {
			q.Set("mode", "ro")
		}
		q.Set("_busy_timeout", ms)
		q.Set("_query_only", "1")
	case ReadWrite:
		q.Set("mode", "rw") // never create the file
		q.Set("_txlock", "immediate")
		q.Add("_pragma", "busy_timeout("+ms+")")
		q.Add("_pragma", "foreign_keys(1)")
	}
	for _, p := range o.Pragmas {
		q.Add("_pragma", p)
	}
	// url.URL renders "file:///abs"; SQLite accepts an empty authority.
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	return u.String()
}

// Access says what an error happened doing, for its wording.
type Access int

const (
	Read Access = iota
	Write
)

// MapError turns a driver error met while reading or writing the store at
// path into our typed errors: busy or locked after timeout is exit 11
// (apperr.Lockf), a corrupt, unreadable or unsupported store exit 10
// (apperr.Statef). what names the step ("open", "schema check", "append
// turn", …). An error that is already typed is returned as it is.
func MapError(err error, path string, a Access, timeout time.Duration, what string) error {
	if err == nil {
		return nil
	}
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return err
	}
	var se *sqlite.Error
	if a == Write {
		if errors.As(err, &se) {
			msg := strings.TrimSpace(se.Error())
			switch se.Code() & 0xff {
			case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
				return apperr.Lockf("OpenClaw SQLite store %s is locked by another writer: still busy after %s (%s)", path, timeout, what).Wrap(err)
			case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
				return apperr.Statef("OpenClaw SQLite store %s is corrupt: %s", path, msg).Wrap(err)
			case sqlite3.SQLITE_CONSTRAINT:
				return apperr.Statef("OpenClaw SQLite store %s refused the write (%s): %s", path, what, msg).Wrap(err)
			}
			return apperr.Statef("cannot write OpenClaw SQLite store %s (%s): %s", path, what, msg).Wrap(err)
		}
		return apperr.Statef("cannot write OpenClaw SQLite store %s (%s): %v", path, what, err).Wrap(err)
	}
	if errors.As(err, &se) {
		msg := strings.TrimSpace(se.Error())
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return apperr.Lockf("OpenClaw SQLite store %s is locked by a writer: still busy after %s (%s)", path, timeout, what).Wrap(err)
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_FORMAT:
			return apperr.Statef("OpenClaw SQLite store %s is corrupt: %s", path, msg).Wrap(err)
		case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH,
			sqlite3.SQLITE_READONLY, sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_FULL, sqlite3.SQLITE_PROTOCOL:
			return apperr.Statef("cannot read OpenClaw SQLite store %s: %s", path, msg).Wrap(err)
		case sqlite3.SQLITE_ERROR, sqlite3.SQLITE_SCHEMA, sqlite3.SQLITE_MISMATCH, sqlite3.SQLITE_RANGE:
			return apperr.Statef("OpenClaw SQLite store %s is unsupported or damaged: %s", path, msg).Wrap(err)
		}
		return apperr.Statef("cannot read OpenClaw SQLite store %s: %s", path, msg).Wrap(err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return apperr.Lockf("OpenClaw SQLite store %s: gave up after %s (%s)", path, timeout, what).Wrap(err)
	}
	return apperr.Statef("cannot read OpenClaw SQLite store %s: %v", path, err).Wrap(err)
}

// CheckFiles refuses, without blocking, a database whose file or -wal,
// -shm or -journal beside it is not a regular file (a FIFO, a device, a
// directory): the driver opens these by name itself, and an open of a FIFO
// would block it for good. Call it right before handing path to the driver.
// A missing -wal/-shm/-journal is fine; a missing database is the caller's
// error to give, as its own open would.
func CheckFiles(path string) error {
	if err := fsutil.CheckRegular(path); errors.Is(err, fsutil.ErrNotRegular) {
		return apperr.Statef("OpenClaw SQLite store %s", err).Wrap(err)
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if err := fsutil.CheckRegularIfExists(path + suffix); errors.Is(err, fsutil.ErrNotRegular) {
			return apperr.Statef("OpenClaw SQLite store %s: %s", path, err).Wrap(err)
		}
	}
	return nil
}
