package sqlitestore

import (
	"database/sql"
	"hash/fnv"

	"github.com/openclaw/sessions/internal/sqlitefile"
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
	// (absent: the store keeps none for it; Generation says 0). It may be
	// shared with other calls' answers: read only.
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
		if gens, ok := db.generationsDirect(tx); ok {
			out.Generations = gens
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
			out.Generations[sid] = generationHash(gen)
		}
		return rows.Err()
	})
	return out, err
}

// generationHash is what Generations holds for a generation (never 0).
func generationHash(gen []byte) uint64 {
	h := fnv.New64a()
	h.Write(gen)
	return h.Sum64() | 1
}

// generationsDirect reads TranscriptChanges' Generations straight from
// the database file (internal/sqlitefile), in transaction tx, with the
// safety of Store's direct read (direct.go): ok is false — the SQL path
// then reads — when the direct read is off, the table is not one it
// handles, any value is not text (the SQL path's Scan would convert it),
// or the file changed meanwhile. A store commit's catch-up asks this of
// every session's row: through SQLite the 5,000 rows of the search
// benchmark's store took ~6 ms, a quarter of the catch-up. The rows read
// are kept with the table's sqlitefile.TreeStamp, and handed out again
// (the same map: read only) while it is unchanged.
func (db *DB) generationsDirect(tx *sql.Tx) (map[string]uint64, bool) {
	if !directOn() {
		return nil, false
	}
	db.marksOnce.Do(func() { db.marks = directTableOf(tx, "transcript_rewrite_watermarks", "session_id", "generation") })
	t := db.marks
	if t == nil {
		return nil, false
	}
	snap, root, ok := t.snapshot(tx, db.path)
	if !ok {
		return nil, false
	}
	defer snap.Close()
	// the rows read last, if the table's tree is the same (its stamp:
	// where each of its pages comes from), as it is after a commit of
	// events alone
	stamp, err := snap.TreeStamp(root)
	if err != nil {
		return nil, false
	}
	db.marksMu.Lock()
	gens, same := db.marksGens, db.marksStamp == stamp
	db.marksMu.Unlock()
	if same && snap.Unchanged() {
		db.directReads++
		return gens, true
	}
	leaves, err := snap.Leaves(root)
	if err != nil {
		return nil, false
	}
	cols, idx := t.cols()
	out := make(map[string]uint64, 64*len(leaves))
	err = snap.ScanLeaves(leaves, cols, sqlitefile.NewScratch(), func(_ int64, v []sqlitefile.Value) error {
		sid, gen := v[idx[0]], v[idx[1]]
		if sid.Kind != sqlitefile.Text || gen.Kind != sqlitefile.Text {
			return errFallback
		}
		out[string(sid.Bytes)] = generationHash(gen.Bytes)
		return nil
	})
	if err != nil || !snap.Unchanged() {
		return nil, false
	}
	db.marksMu.Lock()
	db.marksGens, db.marksStamp = out, stamp
	db.marksMu.Unlock()
	db.directReads++
	return out, true
}
