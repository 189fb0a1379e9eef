package sqlitewrite

import (
	"database/sql"
	"errors"
	"time"
)

// cursor is a session_transcript_index_state row.
type cursor struct {
	activeEvents, activeMessages int64
	indexedSeq                   int64
	leaf                         sql.NullString
}

// indexer keeps OpenClaw's transcript projection (FTS, active events,
// watermark) current as createTranscriptIndexAppenderInTransaction does:
// an event is forward-indexed only when it extends a current projection
// exactly (seq = indexed_seq + 1, no pending rebuild, no unclassified rows,
// its parent = the projection's leaf); otherwise the session is marked
// needs_rebuild = 1 with its counters kept, which OpenClaw's reconcile
// rebuilds from the raw events (its documented fallback).
type indexer struct {
	tx    dbtx
	sid   string
	now   time.Time
	state *cursor // nil: no row
	dirty bool    // marked (or left) for rebuild: stop indexing
}

func newIndexer(tx dbtx, sid string, now time.Time) (*indexer, error) {
	ix := &indexer{tx: tx, sid: sid, now: now}
	var c cursor
	var rebuild int64
	err := tx.QueryRow(`SELECT active_event_count, active_message_count, indexed_seq, leaf_event_id, needs_rebuild
		FROM session_transcript_index_state WHERE session_id = ?`, sid).Scan(&c.activeEvents, &c.activeMessages, &c.indexedSeq, &c.leaf, &rebuild)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, err
	default:
		ix.state = &c
		if rebuild != 0 {
			ix.dirty = true
			return ix, nil
		}
		var one int
		err := tx.QueryRow(`SELECT 1 FROM session_transcript_active_events WHERE session_id = ? AND context_eligible IS NULL LIMIT 1`, sid).Scan(&one)
		if err == nil {
			return ix, ix.markDirty()
		} else if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}
	return ix, nil
}

// start returns the cursor an event at seq extends, or false (not
// forward-indexable) after marking the session as OpenClaw does: with no
// state row an event at seq 0 initialises it and any other leaves it absent
// (absent = needs a rebuild); with a row, a gap marks it dirty.
func (ix *indexer) start(seq int64) (cursor, bool, error) {
	if ix.dirty {
		return cursor{}, false, nil
	}
	if ix.state == nil {
		if seq != 0 {
			ix.dirty = true
			return cursor{}, false, nil
		}
		return cursor{indexedSeq: -1}, true, nil
	}
	if seq != ix.state.indexedSeq+1 {
		return cursor{}, false, ix.markDirty()
	}
	return *ix.state, true, nil
}

// header indexes the transcript header (type session): it projects no
// active row and no FTS row, only advances the watermark.
func (ix *indexer) header(seq, createdAt int64) error {
	c, ok, err := ix.start(seq)
	if !ok || err != nil {
		return err
	}
	c.indexedSeq = seq
	return ix.save(c, createdAt)
}

// message indexes a message event whose tree parent is parent ("" = null).
func (ix *indexer) message(seq int64, ev *preparedEvent, parent string) error {
	c, ok, err := ix.start(seq)
	if !ok || err != nil {
		return err
	}
	initializes := c.indexedSeq == -1
	if !initializes {
		// a canonical event on an empty leaf after active events, or a
		// parent that is not the leaf: not a forward extension
		if !c.leaf.Valid && c.activeEvents > 0 || (parent == "") != !c.leaf.Valid || parent != "" && parent != c.leaf.String {
			if ix.state == nil {
				ix.dirty = true
				return nil
			}
			return ix.markDirty()
		}
	}
	if ev.hasText {
		if _, err := ix.tx.Exec(`INSERT INTO session_transcript_fts_rows(session_id, message_id) VALUES (?, ?)`, ix.sid, ev.id); err != nil {
			return err
		}
		if _, err := ix.tx.Exec(`INSERT INTO session_transcript_fts(rowid, text, session_id, message_id, role, timestamp) VALUES (last_insert_rowid(), ?, ?, ?, ?, ?)`,
			ev.text, ix.sid, ev.id, ev.role, ev.createdAt); err != nil {
			return err
		}
	}
	if _, err := ix.tx.Exec(`INSERT INTO session_transcript_active_events(session_id, active_position, event_seq, message_position, context_eligible) VALUES (?, ?, ?, ?, ?)`,
		ix.sid, c.activeEvents, seq, c.activeMessages, ev.ctxElig); err != nil {
		return err
	}
	c.activeEvents++
	c.activeMessages++
	c.indexedSeq = seq
	c.leaf = sql.NullString{String: ev.id, Valid: true}
	return ix.save(c, ev.createdAt)
}

// save upserts the watermark (needs_rebuild 0, updated_at = the event's createdAt).
func (ix *indexer) save(c cursor, createdAt int64) error {
	var leaf any
	if c.leaf.Valid {
		leaf = c.leaf.String
	}
	_, err := ix.tx.Exec(`INSERT INTO session_transcript_index_state(session_id, indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count, updated_at)
		VALUES (?, ?, ?, 0, ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET indexed_seq = excluded.indexed_seq, leaf_event_id = excluded.leaf_event_id,
		needs_rebuild = 0, active_event_count = excluded.active_event_count, active_message_count = excluded.active_message_count, updated_at = excluded.updated_at`,
		ix.sid, c.indexedSeq, leaf, c.activeEvents, c.activeMessages, createdAt)
	if err == nil {
		ix.state = &c
	}
	return err
}

// markDirty is markSessionTranscriptIndexDirtyInTransaction: needs_rebuild
// = 1, counters and leaf kept, updated_at = now.
func (ix *indexer) markDirty() error {
	ix.dirty = true
	c := cursor{indexedSeq: -1}
	if ix.state != nil {
		c = *ix.state
	}
	var leaf any
	if c.leaf.Valid {
		leaf = c.leaf.String
	}
	_, err := ix.tx.Exec(`INSERT INTO session_transcript_index_state(session_id, indexed_seq, leaf_event_id, needs_rebuild, active_event_count, active_message_count, updated_at)
		VALUES (?, ?, ?, 1, ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET indexed_seq = excluded.indexed_seq, leaf_event_id = excluded.leaf_event_id,
		needs_rebuild = 1, active_event_count = excluded.active_event_count, active_message_count = excluded.active_message_count, updated_at = excluded.updated_at`,
		ix.sid, c.indexedSeq, leaf, c.activeEvents, c.activeMessages, ix.now.UnixMilli())
	return err
}
