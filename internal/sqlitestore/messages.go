package sqlitestore

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"

	"github.com/openclaw/sessions/internal/sqlitefile"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
)

// maxEventBytes is the largest transcript event OpenClaw stores compressed
// (the CHECK on transcript_events.event_utf8_bytes).
const maxEventBytes = 4 << 20

// Messages returns the transcript messages of sessionID with the semantics
// of transcript.ReadMessages over a JSONL file (format §4.4, chat.history):
// the `message` object of every event that has one, in seq order, byte for
// byte as stored, whatever the id/parentId tree (and 2026.8+ `reset`
// entries) say. Each event is one former JSONL line: event_json, or
// event_zstd decompressed (its length must equal event_utf8_bytes).
//
// Options mean what they mean for ReadMessages: IncludeTools false drops
// role "toolResult"; Limit > 0 keeps the last Limit messages after that
// filter and reads from the newest seq backwards, stopping as soon as they
// are found; events longer than MaxLineBytes, not valid UTF-8, not JSON, or
// whose zstd payload does not decode are skipped, counted in Skipped, and
// reported once through Warn. Header is the first event when it is a session
// header.
//
// A transcript archived to cold storage (session_transcript_cold_archives:
// <agent>/sessions/cold/<sha256>.jsonl.zst, or the archive embedded in the
// row) is read from its archive, verified against the recorded size and
// SHA-256, merged in seq order with any events still in transcript_events.
//
// Options.Before > 0 reads only the events with seq < Before (a history
// page cursor); the event of seq Before must exist and have the
// fingerprint Options.BeforeCheck, else the error is
// transcript.ErrCursorMismatch. Result.Positions are the messages' seqs;
// Options.More sets Result.More as for files.
//
// Result.Size is the follow cursor: 1 + the highest seq present when the read
// started (0 for an empty transcript); MessagesSince(sessionID, Size, …)
// returns what was appended since.
//
// A session with no events, no cold archive and no session_windows row has
// no transcript: the error wraps fs.ErrNotExist, as ReadMessages' does for a
// missing file. A locked database is apperr.Lockf (exit 11); an unreadable
// or inconsistent database or archive is apperr.Statef (exit 10).
func (db *DB) Messages(sessionID string, opts transcript.Options) (*transcript.Result, error) {
	return db.MessagesSince(sessionID, 0, opts)
}

// MessagesSince is Messages restricted to the events with seq >= from (Limit
// counts among those). Header is still the transcript's first event.
func (db *DB) MessagesSince(sessionID string, from int64, opts transcript.Options) (*transcript.Result, error) {
	if err := store.ValidSessionID(sessionID); err != nil {
		return nil, err
	}
	maxLine := opts.MaxLine()
	var res *transcript.Result
	var sk transcript.Skips
	var notFound bool
	err := db.read("read transcript "+sessionID, func(tx *sql.Tx) error {
		res, sk, notFound = &transcript.Result{Messages: []json.RawMessage{}}, transcript.Skips{MaxLine: maxLine}, false
		var pre *sqlitefile.Snapshot
		if opts.Limit <= 0 { // a backward read goes through SQLite
			pre = db.eventsSnapshot() // before the first statement: events_direct.go
		}
		cold, err := db.coldEvents(tx, sessionID)
		if err != nil {
			closeSnap(pre)
			return err
		}
		if opts.Before > 0 {
			if err := db.checkCursorEvent(tx, sessionID, cold, opts.Before, opts.BeforeCheck); err != nil {
				closeSnap(pre)
				return err
			}
		}
		src := &events{db: db, tx: tx, sessionID: sessionID, from: from, before: opts.Before, cold: cold, backward: opts.Limit > 0, newest: -1, pre: pre}
		defer src.close()
		want := opts.Limit
		if opts.More && want > 0 {
			want++ // one more tells whether an older message exists
		}
		for {
			ev, ok, err := src.next()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			msg, check, st := classify(db, ev, opts.IncludeTools, maxLine)
			sk.Add(st)
			if st != transcript.StatusMessage {
				continue
			}
			res.Messages = append(res.Messages, msg)
			res.Positions = append(res.Positions, ev.seq)
			res.Checks = append(res.Checks, check)
			if want > 0 && len(res.Messages) >= want {
				break // backwards: the newest seq has been seen already
			}
		}
		if opts.Limit > 0 && len(res.Messages) > opts.Limit {
			res.Messages, res.Positions, res.Checks, res.More = res.Messages[:opts.Limit], res.Positions[:opts.Limit], res.Checks[:opts.Limit], true
		}
		if opts.Limit > 0 {
			slices.Reverse(res.Messages)
			slices.Reverse(res.Positions)
			slices.Reverse(res.Checks)
		}
		res.Size = max(from, src.newest+1)
		if res.Header, err = db.header(tx, sessionID, cold); err != nil {
			return err
		}
		if src.newest < 0 && cold == nil && res.Header == nil {
			var n int
			err := tx.QueryRow("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'session_windows'").Scan(&n)
			if err == nil && n > 0 {
				err = tx.QueryRow("SELECT count(*) FROM session_windows WHERE session_id = ?", sessionID).Scan(&n)
			}
			if err != nil {
				return err
			}
			notFound = n == 0
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if notFound {
		return nil, fmt.Errorf("no transcript for session %s in %s: %w", sessionID, db.path, fs.ErrNotExist)
	}
	res.Skipped = sk.Total()
	if msg := sk.Summary("event", "corrupt JSON, invalid UTF-8 or an undecodable zstd payload", "corrupt, undecodable"); opts.Warn != nil && msg != "" {
		opts.Warn(fmt.Sprintf("transcript of session %s in %s: %s", sessionID, db.path, msg))
	}
	return res, nil
}

// event is one transcript event: its seq and its JSON (nil when the
// compressed payload did not decode; bad says why).
type event struct {
	seq  int64
	body []byte
	n    int64 // the event's size in bytes (event_utf8_bytes when compressed)
	bad  bool
	zstd []byte // compressed payload, decoded lazily (after the size check)
}

// events yields the events of one session from seq `from` on, forwards or
// backwards, merging the hot rows with a cold archive's events (a hot row
// wins over an archived event of the same seq).
type events struct {
	db        *DB
	tx        *sql.Tx
	sessionID string
	from      int64
	before    int64   // > 0: only seq < before
	cold      []event // ascending
	backward  bool

	rows *sql.Rows
	// pre: the snapshot taken before the read's first statement
	// (eventsSnapshot), closed with the events; direct: the hot rows'
	// direct read from it (events_direct.go), nil when through SQLite;
	// lastHot: the seq of the last hot row given (hasHot: one was).
	pre     *sqlitefile.Snapshot
	direct  *hotDirect
	lastHot int64
	hasHot  bool
	// scratch: an event's bytes need only last until the next one is
	// asked for (Events, EventsFrom): the direct read reuses one buffer.
	scratch bool
	started bool
	hot     *event
	hotDone bool
	ci      int   // next cold index
	newest  int64 // highest seq seen (backward reads)
}

func (s *events) close() {
	if s.rows != nil {
		s.rows.Close()
	}
	if s.pre != nil {
		s.pre.Close()
		s.pre = nil
	}
}

func (s *events) start() error {
	s.started = true
	s.newest = -1
	before := s.upper()
	if !s.startDirect() {
		if err := s.startSQL(); err != nil {
			return err
		}
	}
	// Cold events before `from`, or from `before` on, never count.
	lo := 0
	for lo < len(s.cold) && s.cold[lo].seq < s.from {
		lo++
	}
	hi := len(s.cold)
	for hi > lo && s.cold[hi-1].seq >= before {
		hi--
	}
	s.cold = s.cold[lo:hi]
	if s.backward {
		s.ci = len(s.cold) - 1
	}
	return nil
}

// upper is the seq the events read stops before (none: the largest).
func (s *events) upper() int64 {
	if s.before <= 0 {
		return math.MaxInt64
	}
	return s.before
}

// startSQL queries the hot rows from s.from on.
func (s *events) startSQL() error {
	order := "ASC"
	if s.backward {
		order = "DESC"
	}
	rows, err := s.db.query(s.tx, `SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events
		WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq `+order, s.sessionID, s.from, s.upper())
	if err != nil {
		return err
	}
	s.rows = rows
	return nil
}

// fill loads the next hot row into s.hot.
func (s *events) fill() error {
	if s.hot != nil || s.hotDone {
		return nil
	}
	if s.direct != nil {
		if err := s.fillDirect(); err != nil || s.hot == nil {
			return err
		}
		s.lastHot, s.hasHot = s.hot.seq, true
		return nil
	}
	if !s.rows.Next() {
		s.hotDone = true
		return s.rows.Err()
	}
	ev, err := scanEvent(s.rows)
	if err != nil {
		return err
	}
	s.hot = &ev
	return nil
}

// scanEvent reads a row of (seq, event_json, event_zstd, event_utf8_bytes).
func scanEvent(rows *sql.Rows) (event, error) {
	var seq int64
	var js, zs []byte
	var n sql.NullInt64
	if err := rows.Scan(&seq, &js, &zs, &n); err != nil {
		return event{}, err
	}
	return eventOf(seq, js, zs, n), nil
}

// eventOf is the event of a row's (seq, event_json, event_zstd,
// event_utf8_bytes), a NULL being nil.
func eventOf(seq int64, js, zs []byte, n sql.NullInt64) event {
	ev := event{seq: seq}
	switch {
	case js != nil:
		ev.body, ev.n = js, int64(len(js))
	case zs != nil:
		ev.zstd = zs
		ev.n = n.Int64
		if !n.Valid || n.Int64 < 1 || n.Int64 > maxEventBytes {
			ev.bad = true
		}
	default:
		ev.bad = true // neither payload: the CHECK forbids it
	}
	return ev
}

func (s *events) next() (event, bool, error) {
	if !s.started {
		if err := s.start(); err != nil {
			return event{}, false, err
		}
	}
	if err := s.fill(); err != nil {
		return event{}, false, err
	}
	var coldEv *event
	if s.ci >= 0 && s.ci < len(s.cold) {
		coldEv = &s.cold[s.ci]
	}
	var out event
	switch {
	case s.hot == nil && coldEv == nil:
		return event{}, false, nil
	case s.hot == nil:
		out = *coldEv
		s.advanceCold()
	case coldEv == nil:
		out = *s.hot
		s.hot = nil
	case s.hot.seq == coldEv.seq:
		out = *s.hot
		s.hot = nil
		s.advanceCold()
	case (s.hot.seq < coldEv.seq) != s.backward:
		out = *s.hot
		s.hot = nil
	default:
		out = *coldEv
		s.advanceCold()
	}
	if out.seq > s.newest {
		s.newest = out.seq
	}
	return out, true, nil
}

func (s *events) advanceCold() {
	if s.backward {
		s.ci--
	} else {
		s.ci++
	}
}

// classify applies transcript.ReadMessages' rules to one event: longer
// than maxLine → oversize; a compressed payload that does not decode to
// event_utf8_bytes bytes → corrupt; else transcript.Classify (blank,
// corrupt, message object, toolResult filter), whose message is a slice of
// the event's own bytes; and, for a message, the event's Fingerprint.
func classify(db *DB, ev event, includeTools bool, maxLine int64) (json.RawMessage, uint32, transcript.Status) {
	if ev.n > maxLine {
		return nil, 0, transcript.StatusOversize
	}
	data, ok := db.eventData(ev)
	if !ok {
		return nil, 0, transcript.StatusCorrupt
	}
	msg, st := transcript.Classify(data, includeTools)
	if st != transcript.StatusMessage {
		return nil, 0, st
	}
	return msg, transcript.Fingerprint(data), st
}

// checkCursorEvent verifies that the event of seq pos exists (in the table
// or the cold archive) and has the fingerprint check.
func (db *DB) checkCursorEvent(tx *sql.Tx, sessionID string, cold []event, pos int64, check uint32) error {
	var ev event
	var js, zs []byte
	var n sql.NullInt64
	err := tx.QueryRow("SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? AND seq = ?", sessionID, pos).Scan(&ev.seq, &js, &zs, &n)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		i, found := slices.BinarySearchFunc(cold, pos, func(e event, seq int64) int { return cmp.Compare(e.seq, seq) })
		if !found {
			return transcript.ErrCursorMismatch
		}
		ev = cold[i]
	case err != nil:
		return err
	default:
		ev = rowEvent(ev.seq, js, zs, n)
	}
	data, ok := db.eventData(ev)
	if !ok || transcript.Fingerprint(data) != check {
		return transcript.ErrCursorMismatch
	}
	return nil
}

// rowEvent builds an event from a transcript_events row's payload columns.
func rowEvent(seq int64, js, zs []byte, n sql.NullInt64) event {
	ev := event{seq: seq, body: js, zstd: zs, n: int64(len(js))}
	if js == nil {
		ev.n = n.Int64
		ev.bad = zs == nil || !n.Valid || n.Int64 < 1 || n.Int64 > maxEventBytes
	}
	return ev
}

// eventData returns an event's JSON, decompressed when needed; ok is false
// when it cannot be had.
func (db *DB) eventData(ev event) ([]byte, bool) {
	if ev.bad {
		return nil, false
	}
	if ev.zstd == nil {
		return ev.body, true
	}
	d, err := db.decoder()
	if err != nil {
		return nil, false
	}
	out, err := d.DecodeAll(ev.zstd, make([]byte, 0, ev.n))
	if err != nil || int64(len(out)) != ev.n {
		return nil, false
	}
	return out, true
}

// header returns the transcript's first event when it is a session header.
func (db *DB) header(tx *sql.Tx, sessionID string, cold []event) (*transcript.Header, error) {
	var ev event
	var js, zs []byte
	var n sql.NullInt64
	err := tx.QueryRow("SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? ORDER BY seq LIMIT 1", sessionID).Scan(&ev.seq, &js, &zs, &n)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if len(cold) == 0 {
			return nil, nil
		}
		ev = cold[0]
	case err != nil:
		return nil, err
	default:
		if len(cold) > 0 && cold[0].seq < ev.seq {
			ev = cold[0]
		} else {
			ev.body, ev.zstd, ev.n = js, zs, int64(len(js))
			if js == nil {
				ev.n = n.Int64
				ev.bad = !n.Valid || n.Int64 < 1 || n.Int64 > maxEventBytes
			}
		}
	}
	data := ev.body
	if ev.bad {
		return nil, nil
	}
	if ev.zstd != nil {
		d, err := db.decoder()
		if err != nil {
			return nil, nil
		}
		if data, err = d.DecodeAll(ev.zstd, nil); err != nil {
			return nil, nil
		}
	}
	return transcript.ParseHeader(data), nil
}
