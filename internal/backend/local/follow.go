package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
)

// follower is Local.Follow: it emits what is appended to the
// transcript of a session key, from the offset the first read ended at, and
// switches to the key's new transcript when the session is reset.
//
// File events (fsnotify on the transcript's and the store's directories —
// never on the files, which atomic replaces would detach) only wake it up;
// every wake-up, and every poll tick, re-checks the files themselves, so a
// missed event or a file system without inotify costs at most one poll
// interval.
type follower struct {
	l    *Local
	q    backend.FollowQuery
	emit func([]json.RawMessage) (int, error)
	s    *state.State
	t    *state.Target

	path      string      // transcript being followed
	off       int64       // read up to here (a line boundary)
	fi        os.FileInfo // the transcript when last read, to notice a replaced file
	sessionID string      // the key's sessionId when last seen

	storeFI  os.FileInfo // the store when last loaded
	gone     bool        // the key was missing from the store at the last check
	watcher  *fsnotify.Watcher
	watching map[string]bool

	// db is set for a SQLite-era agent (OpenClaw 2026.8+): off is then the
	// next event seq, and commits show up as writes to the database's
	// directory (its -wal file).
	db        *sqlitestore.DB
	dbChecked time.Time
	// ownDB: db was opened by a catch-up (closed when replaced or when
	// the follow ends), not the state's.
	ownDB bool
	// dbStamps are the database and its -wal at the last check; changed
	// is when they moved with nothing read since (zero: no catch-up due).
	dbStamps [2]fsutil.Stamp
	changed  time.Time
}

// sqliteResetEvery throttles the reset check of a SQLite-era key: it reads
// the whole store, so it is not done on every poll tick.
const sqliteResetEvery = 2 * time.Second

// sqliteCatchUpAfter is how long a change of a SQLite store may go with
// nothing new read through the follow's handle before the events are read
// again through a fresh one (catchUp).
const sqliteCatchUpAfter = 300 * time.Millisecond

// Follow emits the messages appended to the session's transcript after
// the page History read, as they come (file events on the transcript's and
// the store's directories wake it, q.Poll re-checks besides), following
// the key across a reset, until ctx ends or q.Idle passes without one. On
// a 2026.8+ store what its handle of the database missed is caught up
// through a fresh one (catchUp).
// emit returns how many messages it printed (what resets the idle timer).
func (l *Local) Follow(ctx context.Context, sess *backend.Session, q backend.FollowQuery, emit func([]json.RawMessage) (int, error)) error {
	ls := handle(sess)
	if ls.orphan != nil {
		return apperr.Usagef("--follow: %s is an orphan transcript (no session entry points to it): nothing appends to it any more", ls.orphan.SessionID)
	}
	fw := &follower{l: l, q: q, emit: emit, s: ls.s, t: ls.t, path: ls.tp, off: ls.off, sessionID: ls.t.Entry.SessionID, db: ls.s.SQLiteDB(ls.t.Agent)}
	defer fw.closeDB()
	return fw.run(ctx)
}

func (fw *follower) debug(msg string, kv ...any) {
	if fw.l.Debug != nil {
		fw.l.Debug(msg, kv...)
	}
}

func (fw *follower) notice(format string, args ...any) {
	if fw.q.Notice != nil {
		fw.q.Notice(fmt.Sprintf(format, args...))
	}
}

func (fw *follower) run(ctx context.Context) error {
	poll := fw.q.Poll
	if poll <= 0 {
		poll = time.Second
	}
	if w, err := fsnotify.NewWatcher(); err == nil {
		fw.watcher = w
		fw.watching = map[string]bool{}
		defer w.Close()
	} else {
		fw.debug("no file events; polling", "err", err)
	}
	if fw.db != nil {
		fw.path = fw.db.Path()
		// A write may have raced the page's read and this start: a
		// catch-up is due unless something is read soon.
		fw.dbStamps, fw.changed = sqliteStamps(fw.path), time.Now()
	}
	fw.watch(filepath.Dir(fw.path))
	fw.watch(filepath.Dir(fw.t.Store.Path))
	if fi, err := os.Stat(fw.path); err == nil {
		fw.fi = fi
	}
	if fi, err := os.Stat(fw.t.Store.Path); err == nil {
		fw.storeFI = fi
	}

	var idle <-chan time.Time
	var idleTimer *time.Timer
	if d := fw.q.Idle; d > 0 {
		idleTimer = time.NewTimer(d)
		defer idleTimer.Stop()
		idle = idleTimer.C
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if fw.watcher != nil {
		events, errs = fw.watcher.Events, fw.watcher.Errors
	}
	// A first check at once: something may have been appended between the
	// first read and the watch.
	for wake := true; ; {
		if wake {
			n, err := fw.check()
			if err != nil {
				return err
			}
			if n > 0 && idleTimer != nil {
				idleTimer.Reset(fw.q.Idle)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-idle:
			return nil
		case ev := <-events:
			wake = ev.Name == fw.path || ev.Name == fw.t.Store.Path || (fw.db != nil && strings.HasPrefix(ev.Name, fw.path))
		case err := <-errs:
			fw.debug("file watch error; polling", "err", err)
			wake = false
		case <-tick.C:
			wake = true
		}
	}
}

// watch adds a directory to the watcher (once).
func (fw *follower) watch(dir string) {
	if fw.watcher == nil || fw.watching[dir] {
		return
	}
	if err := fw.watcher.Add(dir); err != nil {
		fw.debug("cannot watch; polling", "dir", dir, "err", err)
		return
	}
	fw.watching[dir] = true
}

// check prints what was appended and follows a reset; it returns how many
// messages it printed. Only a failure to print ends the follow: unreadable
// files are reported once and retried.
func (fw *follower) check() (int, error) {
	if fw.db != nil {
		return fw.checkSQLite()
	}
	n, err := fw.drain()
	if err != nil {
		return n, err
	}
	next := fw.reset()
	if next == nil {
		return n, nil
	}
	// Print what the old transcript got before the reset, then switch.
	m, err := fw.drain()
	n += m
	if err != nil {
		return n, err
	}
	if next.SessionID != "" {
		fw.notice("sessions: %s was reset: now session %s; following %s", fw.t.DisplayKey, next.SessionID, next.path)
	} else {
		fw.notice("sessions: %s was reset; following %s", fw.t.DisplayKey, next.path)
	}
	fw.path, fw.off, fw.fi, fw.sessionID = next.path, 0, nil, next.SessionID
	fw.watch(filepath.Dir(fw.path))
	m, err = fw.drain()
	return n + m, err
}

// drain reads and prints what was appended to the current transcript.
func (fw *follower) drain() (int, error) {
	fi, err := os.Stat(fw.path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			fw.debug("cannot stat transcript", "path", fw.path, "err", err)
		}
		return 0, nil // not created yet, or moved away: wait
	}
	if fw.fi != nil && !os.SameFile(fw.fi, fi) {
		fw.notice("sessions: %s was replaced; following the new file from its start", fw.path)
		fw.off = 0
	}
	fw.fi = fi
	res, err := transcript.ReadMessagesFrom(fw.path, fw.off, transcript.Options{IncludeTools: fw.q.IncludeTools, Warn: fw.l.Warn})
	if errors.Is(err, transcript.ErrShrunk) {
		fw.notice("sessions: %s was truncated; following it from its start", fw.path)
		fw.off = 0
		res, err = transcript.ReadMessagesFrom(fw.path, 0, transcript.Options{IncludeTools: fw.q.IncludeTools, Warn: fw.l.Warn})
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		fw.debug("cannot read transcript; retrying", "path", fw.path, "err", err)
		return 0, nil
	}
	fw.off = res.Size
	return fw.emit(res.Messages)
}

// next is where a reset key now lives.
type next struct {
	SessionID string
	path      string
}

// reset re-reads the store when it changed and reports the key's new
// transcript when its sessionId (or transcript) changed; nil otherwise.
func (fw *follower) reset() *next {
	sp := fw.t.Store.Path
	fi, err := os.Stat(sp)
	if err != nil {
		return nil
	}
	if fw.storeFI != nil && os.SameFile(fw.storeFI, fi) && fi.ModTime().Equal(fw.storeFI.ModTime()) && fi.Size() == fw.storeFI.Size() {
		return nil
	}
	st, err := store.Load(sp)
	if err != nil {
		fw.debug("cannot reload the store; retrying", "path", sp, "err", err)
		return nil
	}
	fw.storeFI = fi
	e, ok := st.Lookup(fw.t.Key)
	if !ok {
		if !fw.gone {
			fw.notice("sessions: %s is no longer in the session store; still following %s", fw.t.DisplayKey, fw.path)
		}
		fw.gone = true
		return nil
	}
	fw.gone = false
	if e.SessionID == fw.sessionID {
		return nil
	}
	// A fresh resolver: the cached directory listing predates the new file.
	res := store.NewResolver(fw.s.Dir.Path)
	res.SingleLink = fw.s.Resolver.SingleLink
	tp, err := res.Transcript(st, e, fw.s.SessionsDir(fw.t.Agent))
	if err != nil {
		fw.l.Warn(err.Error())
		fw.sessionID = e.SessionID // reported once
		return nil
	}
	if tp.Path == fw.path {
		fw.sessionID = e.SessionID
		return nil
	}
	return &next{SessionID: e.SessionID, path: tp.Path}
}

// checkSQLite is check for a SQLite-era key: new events of the current
// session (caught up through a fresh handle when the follow's own was left
// behind), then (throttled) whether the key moved to a new session.
func (fw *follower) checkSQLite() (int, error) {
	off := fw.off
	n, err := fw.drainSQLite()
	if err == nil {
		var m int
		m, err = fw.catchUp(fw.off > off)
		n += m
	}
	if err != nil || time.Since(fw.dbChecked) < sqliteResetEvery {
		return n, err
	}
	fw.dbChecked = time.Now()
	st, err := fw.db.Store()
	if err != nil {
		fw.debug("cannot reload the SQLite store; retrying", "err", err)
		return n, nil
	}
	e, ok := st.Lookup(fw.t.Key)
	if !ok || e.SessionID == fw.sessionID {
		return n, nil
	}
	fw.notice("sessions: %s was reset: now session %s", fw.t.DisplayKey, e.SessionID)
	fw.sessionID, fw.off = e.SessionID, 0
	m, err := fw.drainSQLite()
	return n + m, err
}

func (fw *follower) drainSQLite() (int, error) {
	res, err := fw.db.MessagesSince(fw.sessionID, fw.off, transcript.Options{IncludeTools: fw.q.IncludeTools, Warn: fw.l.Warn})
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			fw.debug("cannot read the SQLite transcript; retrying", "err", err)
		}
		return 0, nil
	}
	if res.Size > fw.off {
		fw.off = res.Size
	}
	return fw.emit(res.Messages)
}

// catchUp reads the session's events after the follow's place again
// through a fresh handle of the database when the database (or its -wal)
// changed and nothing new was read through the follow's own handle for
// sqliteCatchUpAfter since (read: the check's drain read new events): a
// write racing the follow's start, or a writer's checkpoint, can leave that
// handle behind. The fresh handle goes on as the follow's (its reset checks
// too); it returns how many messages were printed.
func (fw *follower) catchUp(read bool) (int, error) {
	now := time.Now()
	if st := sqliteStamps(fw.path); !st[0].Equal(fw.dbStamps[0]) || !st[1].Equal(fw.dbStamps[1]) {
		fw.dbStamps = st
		if fw.changed.IsZero() {
			fw.changed = now
		}
	}
	if read {
		fw.changed = time.Time{} // the handle reads what is written
		return 0, nil
	}
	if fw.changed.IsZero() || now.Sub(fw.changed) < sqliteCatchUpAfter {
		return 0, nil
	}
	db, err := sqlitestore.Open(fw.path, sqlitestore.Options{Warn: fw.l.Warn})
	if err != nil {
		fw.debug("cannot open the SQLite store again to catch up; retrying", "path", fw.path, "err", err)
		return 0, nil
	}
	fw.changed = time.Time{}
	fw.closeDB()
	fw.db, fw.ownDB = db, true
	n, err := fw.drainSQLite()
	if n > 0 {
		fw.debug("follow caught up through a fresh handle of the SQLite store", "path", fw.path, "messages", n)
	}
	return n, err
}

// closeDB closes the follow's handle of the database when it opened it.
func (fw *follower) closeDB() {
	if fw.ownDB && fw.db != nil {
		fw.db.Close()
	}
	fw.ownDB = false
}

// sqliteStamps are the stamps of a database and its -wal (zero: missing).
func sqliteStamps(path string) [2]fsutil.Stamp {
	var st [2]fsutil.Stamp
	for i, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			st[i] = fsutil.StampOf(fi)
		}
	}
	return st
}
