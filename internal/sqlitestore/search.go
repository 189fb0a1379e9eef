package sqlitestore

import (
	"cmp"
	"database/sql"
	"fmt"
	"slices"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
)

// Events calls fn for every transcript event of sessionID in seq order — the
// hot transcript_events rows merged with the session's cold archive, as
// Messages reads them — with the event's JSON (zstd payloads decoded). An
// event longer than maxLine, or whose payload does not decode, is passed
// with data nil and status StatusOversize or StatusCorrupt; otherwise the
// status is StatusMessage and data is valid until fn returns.
//
// A read may be redone (a checkpoint under an immutable read, see read):
// reset is called before every attempt, so a caller starts its results
// afresh. A session without events gives none (no error).
func (db *DB) Events(sessionID string, maxLine int64, reset func(), fn func(seq int64, data []byte, st transcript.Status)) error {
	if err := store.ValidSessionID(sessionID); err != nil {
		return err
	}
	return db.read("read transcript "+sessionID, func(tx *sql.Tx) error {
		reset()
		pre := db.eventsSnapshot() // before the first statement: events_direct.go
		cold, err := db.coldEvents(tx, sessionID)
		if err != nil {
			closeSnap(pre)
			return err
		}
		src := &events{db: db, tx: tx, sessionID: sessionID, cold: cold, newest: -1, pre: pre, scratch: true}
		defer src.close()
		for {
			ev, ok, err := src.next()
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
			data, st := decodeEvent(db, ev, maxLine)
			fn(ev.seq, data, st)
		}
	})
}

// EventsAt calls fn for the events of the given seqs of the given sessions
// (want: by session, seqs ascending), as Events gives them — a hot row, else
// the session's cold archive's event of that seq; a seq that holds none is
// passed over — in one read: what the search index reads to verify its
// candidates without the rest of their sessions. reset is as Events'.
func (db *DB) EventsAt(want map[string][]int64, maxLine int64, reset func(), fn func(sessionID string, seq int64, data []byte, st transcript.Status)) error {
	for id := range want {
		if err := store.ValidSessionID(id); err != nil {
			return err
		}
	}
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return db.read("read transcript events", func(tx *sql.Tx) error {
		reset()
		// Which sessions have a cold archive (rare): only theirs is read.
		archived := map[string]bool{}
		if db.hasCold {
			rows, err := tx.Query(`SELECT session_id FROM session_transcript_cold_archives`)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return err
				}
				archived[id] = true
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		// One statement for every event: prepared once, stepped per seq.
		stmt, err := tx.Prepare(`SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? AND seq = ?`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, id := range ids {
			var cold []event
			if archived[id] {
				if cold, err = db.coldEvents(tx, id); err != nil {
					return err
				}
			}
			for _, q := range want[id] {
				rows, err := stmt.Query(id, q)
				if err != nil {
					return err
				}
				ev, ok := event{}, rows.Next()
				if ok {
					ev, err = scanEvent(rows)
				}
				rows.Close()
				if err == nil {
					err = rows.Err()
				}
				if err != nil {
					return err
				}
				if !ok {
					i, found := slices.BinarySearchFunc(cold, q, func(e event, q int64) int { return cmp.Compare(e.seq, q) })
					if !found {
						continue
					}
					ev = cold[i]
				}
				data, st := decodeEvent(db, ev, maxLine)
				fn(id, q, data, st)
			}
		}
		return nil
	})
}

// decodeEvent is classify's size and payload checks without the message
// rules: the event's JSON, or nil with the reason it is unreadable.
func decodeEvent(db *DB, ev event, maxLine int64) ([]byte, transcript.Status) {
	if ev.n > maxLine {
		return nil, transcript.StatusOversize
	}
	if ev.bad {
		return nil, transcript.StatusCorrupt
	}
	if ev.zstd == nil {
		return ev.body, transcript.StatusMessage
	}
	d, err := db.decoder()
	if err != nil {
		return nil, transcript.StatusCorrupt
	}
	out, err := d.DecodeAll(ev.zstd, make([]byte, 0, ev.n))
	if err != nil || int64(len(out)) != ev.n {
		return nil, transcript.StatusCorrupt
	}
	return out, transcript.StatusMessage
}

// FTSRow is one row of OpenClaw's transcript search index
// (session_transcript_fts, 2026.9): the indexed text of a user or assistant
// message (trimmed content string, message.text, or its text blocks joined
// by "\n"), with its event id, role and timestamp (epoch ms), and the seq
// of its event (transcript_event_identities; -1 when unknown).
type FTSRow struct {
	MessageID string
	Role      string
	Timestamp int64
	Text      string
	Seq       int64
}

// FTSCurrent returns the sessions whose search index is current: OpenClaw's
// index state says it needs no rebuild and has indexed up to the newest
// event in transcript_events, and the transcript is not in cold storage
// (whose events leave the index). A database without the index tables
// (before 2026.9) has none.
func (db *DB) FTSCurrent() (map[string]bool, error) {
	out := map[string]bool{}
	err := db.read("read the transcript index state", func(tx *sql.Tx) error {
		clear(out)
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name IN
			('session_transcript_fts', 'session_transcript_fts_rows', 'session_transcript_index_state', 'transcript_event_identities')`).Scan(&n); err != nil {
			return err
		}
		if n != 4 {
			return nil
		}
		q := `SELECT s.session_id FROM session_transcript_index_state s
			WHERE s.needs_rebuild = 0
			AND s.indexed_seq = (SELECT max(seq) FROM transcript_events e WHERE e.session_id = s.session_id)`
		if db.hasCold {
			q += ` AND NOT EXISTS (SELECT 1 FROM session_transcript_cold_archives c WHERE c.session_id = s.session_id)`
		}
		rows, err := tx.Query(q)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			out[id] = true
		}
		return rows.Err()
	})
	return out, err
}

// FTSRows calls fn for every row of sessionID's search index, in seq order.
// reset is called before every attempt (see Events). It reads the index's
// stored text (its FTS5 content table, read-only) through
// session_transcript_fts_rows, the rows OpenClaw owns for the session.
func (db *DB) FTSRows(sessionID string, reset func(), fn func(FTSRow)) error {
	return db.read("read the transcript index of "+sessionID, func(tx *sql.Tx) error {
		reset()
		rows, err := db.query(tx, `SELECT coalesce(r.message_id, f.message_id, ''), coalesce(f.role, ''), f.timestamp, coalesce(f.text, ''), coalesce(i.seq, -1)
			FROM session_transcript_fts_rows r
			JOIN session_transcript_fts f ON f.rowid = r.id
			LEFT JOIN transcript_event_identities i ON i.session_id = r.session_id AND i.event_id = r.message_id
			WHERE r.session_id = ?
			ORDER BY coalesce(i.seq, -1), r.id`, sessionID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r FTSRow
			var ts sql.NullFloat64
			if err := rows.Scan(&r.MessageID, &r.Role, &ts, &r.Text, &r.Seq); err != nil {
				return fmt.Errorf("search index row: %w", err)
			}
			r.Timestamp = int64(ts.Float64)
			fn(r)
		}
		return rows.Err()
	})
}

// Archive is a reset or deleted transcript that OpenClaw 2026.8+ keeps in the
// store (session_transcript_archives; also published as a file named Name
// in the sessions dir): the transcript's events as JSONL, zstd-compressed
// when Encoding is "zstd"; Reason is "reset" or "deleted".
type Archive struct {
	SessionID, Generation, SessionKey, Reason, Name, Encoding string
	Bytes                                                     int64 // the stored (encoded) size
}

// maxArchiveBlob bounds an archive read from the store into memory.
const maxArchiveBlob = 64 << 20

// Archives lists the store's archived transcripts, newest first (none
// before the table exists).
func (db *DB) Archives() ([]Archive, error) {
	var out []Archive
	err := db.read("list transcript archives", func(tx *sql.Tx) error {
		out = nil
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'session_transcript_archives'`).Scan(&n); err != nil || n == 0 {
			return err
		}
		rows, err := tx.Query(`SELECT session_id, generation, session_key, reason, archive_name, encoding, length(archive_blob)
			FROM session_transcript_archives ORDER BY created_at DESC, archive_name`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a Archive
			if err := rows.Scan(&a.SessionID, &a.Generation, &a.SessionKey, &a.Reason, &a.Name, &a.Encoding, &a.Bytes); err != nil {
				return err
			}
			out = append(out, a)
		}
		return rows.Err()
	})
	return out, err
}

// ArchiveBlob returns an archive's stored bytes, verified against its
// recorded SHA-256 (as OpenClaw verifies them before publishing). An
// archive larger than 64 MiB is not read into memory: an error says so.
func (db *DB) ArchiveBlob(a Archive) ([]byte, error) {
	if a.Bytes > maxArchiveBlob {
		return nil, fmt.Errorf("archive %s is %d bytes, more than the %d read from the store (its published file is searched when present)", a.Name, a.Bytes, maxArchiveBlob)
	}
	var blob []byte
	var sum string
	err := db.read("read transcript archive "+a.Name, func(tx *sql.Tx) error {
		return tx.QueryRow(`SELECT archive_blob, archive_sha256 FROM session_transcript_archives WHERE session_id = ? AND generation = ?`,
			a.SessionID, a.Generation).Scan(&blob, &sum)
	})
	if err != nil {
		return nil, err
	}
	if !sha256Matches(blob, sum) {
		return nil, apperr.Statef("transcript archive %s in %s failed verification (SHA-256 differs from the database's record)", a.Name, db.path)
	}
	return blob, nil
}
