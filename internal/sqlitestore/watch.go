package sqlitestore

import (
	"database/sql"

	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
)

// EventsAfter reports what transcript_events gained after the row `after`
// (a rowid an earlier call returned): the sessions with new events, each
// with its lowest new seq, and the highest rowid now. OpenClaw appends
// events as new rows, so their rowids only grow: this reads the new rows
// alone, by rowid, however big the table is. after < 0 only asks for the
// highest rowid (where a feed starts).
func (db *DB) EventsAfter(after int64) (first map[string]int64, last int64, err error) {
	err = db.read("read new transcript events", func(tx *sql.Tx) error {
		first, last = map[string]int64{}, max(after, 0)
		if after < 0 {
			var n sql.NullInt64
			if err := tx.QueryRow("SELECT max(rowid) FROM transcript_events").Scan(&n); err != nil {
				return err
			}
			last = n.Int64
			return nil
		}
		rows, err := tx.Query("SELECT rowid, session_id, seq FROM transcript_events WHERE rowid > ? ORDER BY rowid", after)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, seq int64
			var sid string
			if err := rows.Scan(&id, &sid, &seq); err != nil {
				return err
			}
			if f, ok := first[sid]; !ok || seq < f {
				first[sid] = seq
			}
			last = max(last, id)
		}
		return rows.Err()
	})
	return first, last, err
}

// EventsFrom is Events restricted to the events with seq >= from: what a
// feed reads of a session that gained events.
func (db *DB) EventsFrom(sessionID string, from, maxLine int64, fn func(seq int64, data []byte, st transcript.Status)) error {
	if err := store.ValidSessionID(sessionID); err != nil {
		return err
	}
	var seen map[int64]bool
	return db.read("read transcript "+sessionID, func(tx *sql.Tx) error {
		pre := db.eventsSnapshot() // before the first statement: events_direct.go
		cold, err := db.coldEvents(tx, sessionID)
		if err != nil {
			closeSnap(pre)
			return err
		}
		src := &events{db: db, tx: tx, sessionID: sessionID, from: from, cold: cold, newest: -1, pre: pre, scratch: true}
		defer src.close()
		for {
			ev, ok, err := src.next()
			if err != nil || !ok {
				return err
			}
			if seen[ev.seq] { // a redone read (see read): each event once
				continue
			}
			if seen == nil {
				seen = map[int64]bool{}
			}
			seen[ev.seq] = true
			data, st := decodeEvent(db, ev, maxLine)
			fn(ev.seq, data, st)
		}
	})
}

// Stamps returns each session's key and updated_at from the updated_at
// index alone — no entry is read — or an error where that index is
// missing; and the keys whose entry_valid is not 1. OpenClaw sets
// updated_at (entry_json's updatedAt) to at least now on every write of an
// entry, and marks the entry valid again after it; a writer that changes
// entry_json any other way leaves entry_valid 0 (the schema's trigger). So
// a feed compares the stamps, and reads again the changed and the
// unvalidated sessions only.
func (db *DB) Stamps() (stamps map[string]int64, unvalidated []string, err error) {
	stamps = map[string]int64{}
	err = db.read("read session stamps", func(tx *sql.Tx) error {
		clear(stamps)
		unvalidated = nil
		rows, err := tx.Query("SELECT session_key, updated_at FROM session_nodes INDEXED BY idx_agent_session_nodes_updated_at")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var u int64
			if err := rows.Scan(&k, &u); err != nil {
				return err
			}
			stamps[k] = u
		}
		if err := rows.Err(); err != nil {
			return err
		}
		// The partial index holds only those rows; where it is missing
		// (it is optional) the stamps alone are compared.
		nv, err := tx.Query("SELECT session_key FROM session_nodes INDEXED BY idx_agent_session_nodes_entry_not_valid WHERE entry_valid != 1")
		if err != nil {
			return nil
		}
		defer nv.Close()
		for nv.Next() {
			var k string
			if err := nv.Scan(&k); err != nil {
				return err
			}
			unvalidated = append(unvalidated, k)
		}
		return nv.Err()
	})
	return stamps, unvalidated, err
}
