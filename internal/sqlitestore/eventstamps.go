package sqlitestore

import "database/sql"

// EventsStamp is what one query tells of a session's events in
// transcript_events without reading them one by one: their number, first
// and last seq, and the bytes of their payloads (event_json, event_zstd).
// An append, a deletion, a move to cold storage or a rewrite that changes
// a payload's length changes it.
type EventsStamp struct {
	Count, MinSeq, MaxSeq, Bytes int64
}

// EventsStamps returns every sessionId's EventsStamp, in one query (a
// search index asks it once per update of a store that changed, and reads
// again only the sessions whose stamp moved).
func (db *DB) EventsStamps() (map[string]EventsStamp, error) {
	out := map[string]EventsStamp{}
	err := db.read("read the events' stamps", func(tx *sql.Tx) error {
		clear(out)
		rows, err := tx.Query(`SELECT session_id, count(*), min(seq), max(seq),
			coalesce(sum(length(CAST(event_json AS BLOB))), 0) + coalesce(sum(length(event_zstd)), 0)
			FROM transcript_events GROUP BY session_id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var sid string
			var st EventsStamp
			if err := rows.Scan(&sid, &st.Count, &st.MinSeq, &st.MaxSeq, &st.Bytes); err != nil {
				return err
			}
			out[sid] = st
		}
		return rows.Err()
	})
	return out, err
}
