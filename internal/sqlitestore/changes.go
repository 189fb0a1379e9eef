package sqlitestore

import (
	"database/sql"
	"hash/fnv"
)

// TranscriptChanges is what a store tells, without reading any event, of
// the transcripts changed since an earlier look: the sessions with rows
// added since then, and each session's transcript generation — what
// OpenClaw itself keys its transcript caches on (the spec's §2.4).
//
// OpenClaw marks every change to a transcript so: an append inserts rows
// (a rowid above every earlier one), and every change to rows already
// there — a replacement (rewind, compaction, reset of the window), an
// exact rewrite of rows, an update of an event's JSON — rotates the
// session's transcript_rewrite_watermarks.generation in the same
// transaction (2026.9.6: session-accessor.sqlite-transcript-store,
// replaceSqliteTranscriptEventsInTransaction,
// rewriteSqliteTranscriptEventRowsInTransaction,
// updateSqliteTranscriptEventJsonInTransaction). A writer that edits or
// deletes rows in place without it is not told of, as OpenClaw's own
// caches do not see it; but a deletion of the table's last rows is
// (Rewound).
type TranscriptChanges struct {
	// MaxRowID is the events table's highest rowid (0: no row).
	MaxRowID int64
	// Rewound: MaxRowID is below the one asked from, so rows were
	// deleted at the end of the table (and rowids may come again):
	// Added cannot be told, every session is to be read.
	Rewound bool
	// Added holds the sessions with a row of rowid above the one asked
	// from (nil when asked from below 0: from the start, unknown).
	Added map[string]bool
	// Generations is a hash of each session's transcript generation
	// (absent: the store keeps none for it; Generation says 0).
	Generations map[string]uint64
}

// Generation is a hash of session sid's transcript generation (0: the
// store keeps none for it).
func (c *TranscriptChanges) Generation(sid string) uint64 { return c.Generations[sid] }

// TranscriptChanges tells what changed in the store's transcripts since
// rowid after (the MaxRowID of an earlier TranscriptChanges; below 0:
// nothing known, Added is nil). It reads the rows added since then and
// one row per session's generation, and no event: a store commit costs
// a search index what changed, not a read of every event.
func (db *DB) TranscriptChanges(after int64) (TranscriptChanges, error) {
	var out TranscriptChanges
	err := db.read("read the transcripts' generations", func(tx *sql.Tx) error {
		out = TranscriptChanges{}
		if err := tx.QueryRow(`SELECT coalesce(max(rowid), 0) FROM transcript_events`).Scan(&out.MaxRowID); err != nil {
			return err
		}
		switch {
		case after < 0:
		case out.MaxRowID < after:
			out.Rewound = true
		default:
			out.Added = map[string]bool{}
			rows, err := tx.Query(`SELECT session_id FROM transcript_events WHERE rowid > ?`, after)
			if err != nil {
				return err
			}
			for rows.Next() {
				var sid string
				if err := rows.Scan(&sid); err != nil {
					rows.Close()
					return err
				}
				out.Added[sid] = true
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		var marks int
		if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'transcript_rewrite_watermarks'`).Scan(&marks); err != nil {
			return err
		}
		if marks == 0 {
			return nil
		}
		rows, err := tx.Query(`SELECT session_id, generation FROM transcript_rewrite_watermarks`)
		if err != nil {
			return err
		}
		defer rows.Close()
		out.Generations = map[string]uint64{}
		for rows.Next() {
			var sid string
			var gen sql.RawBytes
			if err := rows.Scan(&sid, &gen); err != nil {
				return err
			}
			h := fnv.New64a()
			h.Write(gen)
			out.Generations[sid] = h.Sum64() | 1
		}
		return rows.Err()
	})
	return out, err
}
