package sqlitestore

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"

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
	maxLine := int64(opts.MaxLineBytes)
	if maxLine <= 0 {
		maxLine = transcript.DefaultMaxLineBytes
	}
	var res *transcript.Result
	var sk skips
	var notFound bool
	err := db.read("read transcript "+sessionID, func(tx *sql.Tx) error {
		res, sk, notFound = &transcript.Result{Messages: []json.RawMessage{}}, skips{}, false
		cold, err := db.coldEvents(tx, sessionID)
		if err != nil {
			return err
		}
		src := &events{db: db, tx: tx, sessionID: sessionID, from: from, cold: cold, backward: opts.Limit > 0, newest: -1}
		defer src.close()
		for {
			ev, ok, err := src.next()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			msg, st := classify(db, ev, opts.IncludeTools, maxLine)
			sk.add(st)
			if st != stMessage {
				continue
			}
			res.Messages = append(res.Messages, msg)
			if opts.Limit > 0 && len(res.Messages) >= opts.Limit {
				break // backwards: the newest seq has been seen already
			}
		}
		if opts.Limit > 0 {
			slices.Reverse(res.Messages)
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
	res.Skipped = sk.total()
	sk.warn(db.path, sessionID, maxLine, opts.Warn)
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
	cold      []event // ascending
	backward  bool

	rows    *sql.Rows
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
}

func (s *events) start() error {
	s.started = true
	s.newest = -1
	order := "ASC"
	if s.backward {
		order = "DESC"
	}
	rows, err := s.tx.Query(`SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events
		WHERE session_id = ? AND seq >= ? ORDER BY seq `+order, s.sessionID, s.from)
	if err != nil {
		return err
	}
	s.rows = rows
	// Cold events before `from` never count.
	lo := 0
	for lo < len(s.cold) && s.cold[lo].seq < s.from {
		lo++
	}
	s.cold = s.cold[lo:]
	if s.backward {
		s.ci = len(s.cold) - 1
	}
	return nil
}

// fill loads the next hot row into s.hot.
func (s *events) fill() error {
	if s.hot != nil || s.hotDone {
		return nil
	}
	if !s.rows.Next() {
		s.hotDone = true
		return s.rows.Err()
	}
	var ev event
	var js, zs []byte
	var n sql.NullInt64
	if err := s.rows.Scan(&ev.seq, &js, &zs, &n); err != nil {
		return err
	}
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
	s.hot = &ev
	return nil
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

// status is what an event turned out to be (transcript.classify's rules).
type status int

const (
	stSilent   status = iota // blank, not a message, or filtered out
	stMessage                // a message to return
	stCorrupt                // bad JSON, invalid UTF-8, or an undecodable payload
	stOversize               // longer than MaxLineBytes
)

// classify applies transcript.ReadMessages' rules to one event:
//
//  1. longer than maxLine → oversize;
//  2. a compressed payload that does not decode to event_utf8_bytes bytes → corrupt;
//  3. blank (JS trim() leaves nothing) → silent;
//  4. not valid UTF-8 or not valid JSON → corrupt;
//  5. no `message` object at the top level (the last of duplicated keys
//     wins) → silent;
//  6. message.role == "toolResult" and tool results excluded → silent;
//  7. else the message (a slice of the event's own bytes).
func classify(db *DB, ev event, includeTools bool, maxLine int64) (json.RawMessage, status) {
	if ev.n > maxLine {
		return nil, stOversize
	}
	if ev.bad {
		return nil, stCorrupt
	}
	data := ev.body
	if ev.zstd != nil {
		d, err := db.decoder()
		if err != nil {
			return nil, stCorrupt
		}
		out, err := d.DecodeAll(ev.zstd, make([]byte, 0, ev.n))
		if err != nil || int64(len(out)) != ev.n {
			return nil, stCorrupt
		}
		data = out
	}
	if isBlank(data) {
		return nil, stSilent
	}
	if !utf8.Valid(data) || !json.Valid(data) {
		return nil, stCorrupt
	}
	ms, me, ok := lastKey(data, "message")
	if !ok || data[ms] != '{' {
		return nil, stSilent
	}
	msg := data[ms:me]
	if !includeTools && lastString(msg, "role") == "toolResult" {
		return nil, stSilent
	}
	return json.RawMessage(msg[:len(msg):len(msg)]), stMessage // data is this event's own copy
}

// skips counts the unreadable events of one read.
type skips struct{ corrupt, oversize int }

func (s *skips) add(st status) {
	switch st {
	case stCorrupt:
		s.corrupt++
	case stOversize:
		s.oversize++
	}
}

func (s *skips) total() int { return s.corrupt + s.oversize }

func (s *skips) warn(path, sessionID string, maxLine int64, fn func(string)) {
	n := s.total()
	if fn == nil || n == 0 {
		return
	}
	plural := "s"
	if n == 1 {
		plural = ""
	}
	var why string
	switch {
	case s.oversize == 0:
		why = "corrupt JSON, invalid UTF-8 or an undecodable zstd payload"
	case s.corrupt == 0:
		why = fmt.Sprintf("longer than %d bytes", maxLine)
	default:
		why = fmt.Sprintf("corrupt, undecodable or longer than %d bytes", maxLine)
	}
	fn(fmt.Sprintf("transcript of session %s in %s: skipped %d unreadable event%s (%s)", sessionID, path, n, plural, why))
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
	return parseHeader(data), nil
}

// parseHeader mirrors transcript's header rule: type "session" and a string id.
func parseHeader(data []byte) *transcript.Header {
	if len(data) == 0 || !utf8.Valid(data) || !json.Valid(data) {
		return nil
	}
	f := fields(data, "type", "version", "id", "timestamp", "cwd", "parentSession")
	typ, id := f["type"], f["id"]
	if typ.Type != gjson.String || typ.Str != "session" || id.Type != gjson.String {
		return nil
	}
	h := &transcript.Header{Type: clone(typ.Str), ID: clone(id.Str)}
	if v := f["version"]; v.Type == gjson.Number {
		h.Version = int(v.Int())
	}
	if v := f["timestamp"]; v.Type == gjson.String {
		h.Timestamp = clone(v.Str)
	}
	if v := f["cwd"]; v.Type == gjson.String {
		h.Cwd = clone(v.Str)
	}
	if v := f["parentSession"]; v.Type == gjson.String {
		h.ParentSession = clone(v.Str)
	}
	return h
}

func clone(s string) string { return string([]byte(s)) }

// str views b as a string without copying (b must not change meanwhile).
func str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// isBlank reports whether data holds only JavaScript whitespace.
func isBlank(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			switch c {
			case ' ', '\t', '\n', '\v', '\f', '\r':
				i++
				continue
			}
			return false
		}
		r, size := utf8.DecodeRune(data[i:])
		if !isJSSpace(r) || (r == utf8.RuneError && size == 1) {
			return false
		}
		i += size
	}
	return true
}

func isJSSpace(r rune) bool {
	switch r {
	case 0x00a0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// lastKey finds the value of key in the JSON object data (valid JSON), the
// last occurrence winning as in JSON.parse, and returns its byte range.
func lastKey(data []byte, key string) (start, end int, ok bool) {
	s := str(data)
	obj := gjson.Parse(s)
	if !obj.IsObject() {
		return 0, 0, false
	}
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.Str == key {
			start, end = v.Index, v.Index+len(v.Raw)
			ok = v.Raw != "" && start >= 0 && end <= len(s) && s[start:end] == v.Raw
		}
		return true
	})
	return start, end, ok
}

// lastString returns the string value of key in the JSON object data (last
// occurrence wins), "" when absent or not a string.
func lastString(data []byte, key string) string {
	var out string
	gjson.Parse(str(data)).ForEach(func(k, v gjson.Result) bool {
		if k.Str == key {
			out = ""
			if v.Type == gjson.String {
				out = v.Str
			}
		}
		return true
	})
	return clone(out)
}

// fields returns the top-level values of keys (last occurrence wins).
func fields(data []byte, keys ...string) map[string]gjson.Result {
	out := make(map[string]gjson.Result, len(keys))
	obj := gjson.Parse(str(data))
	if !obj.IsObject() {
		return out
	}
	obj.ForEach(func(k, v gjson.Result) bool {
		for _, want := range keys {
			if k.Str == want {
				out[want] = v
			}
		}
		return true
	})
	return out
}
