package sqlitestore

import (
	"database/sql"
	"strings"
)

// Health is what `sessions doctor` reads of an agent database: read-only,
// through the same connection rules as every other read.
type Health struct {
	UserVersion int
	// QuickCheck is "ok" or the first problems PRAGMA quick_check reports
	// (joined with "; ", at most 5).
	QuickCheck string
	// HasEntryValid: session_nodes has OpenClaw's entry_valid column.
	HasEntryValid bool
	// Invalid are the session keys whose entry_valid is not 1, except the
	// {} / -1 placeholder OpenClaw creates before its entry writer runs
	// (at most 50 keys; InvalidCount has them all).
	Invalid      []string
	InvalidCount int
}

// maxInvalidKeys bounds Health.Invalid.
const maxInvalidKeys = 50

// Health runs PRAGMA user_version, PRAGMA quick_check and the entry_valid
// query, all read-only.
func (db *DB) Health() (*Health, error) {
	var h Health
	err := db.read("health check", func(tx *sql.Tx) error {
		h = Health{}
		if err := tx.QueryRow("PRAGMA user_version").Scan(&h.UserVersion); err != nil {
			return err
		}
		rows, err := tx.Query("PRAGMA quick_check(5)")
		if err != nil {
			return err
		}
		var msgs []string
		for rows.Next() {
			var m string
			if err := rows.Scan(&m); err != nil {
				rows.Close()
				return err
			}
			msgs = append(msgs, m)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		h.QuickCheck = strings.Join(msgs, "; ")
		var n int
		if err := tx.QueryRow("SELECT count(*) FROM pragma_table_info('session_nodes') WHERE name = 'entry_valid'").Scan(&n); err != nil {
			return err
		}
		h.HasEntryValid = n > 0
		if !h.HasEntryValid {
			return nil
		}
		const bad = "entry_valid != 1 AND NOT (entry_valid = -1 AND entry_json = '{}')"
		if err := tx.QueryRow("SELECT count(*) FROM session_nodes WHERE " + bad).Scan(&h.InvalidCount); err != nil {
			return err
		}
		if h.InvalidCount == 0 {
			return nil
		}
		krows, err := tx.Query("SELECT session_key FROM session_nodes WHERE "+bad+" ORDER BY session_key LIMIT ?", maxInvalidKeys)
		if err != nil {
			return err
		}
		defer krows.Close()
		for krows.Next() {
			var k string
			if err := krows.Scan(&k); err != nil {
				return err
			}
			h.Invalid = append(h.Invalid, k)
		}
		return krows.Err()
	})
	if err != nil {
		return nil, err
	}
	return &h, nil
}

// TableSpace is the space one table takes in the database file, its
// indexes included.
type TableSpace struct {
	Table string
	Bytes int64
}

// Space lists the tables that take the most space, largest first (at most
// limit), from SQLite's dbstat virtual table (one aggregate row per b-tree;
// an index counts towards its table). It reads every page's header, never a
// row's content, and fails where the driver has no dbstat.
func (db *DB) Space(limit int) ([]TableSpace, error) {
	var out []TableSpace
	err := db.read("space by table", func(tx *sql.Tx) error {
		out = nil
		rows, err := tx.Query(`SELECT coalesce(m.tbl_name, s.name) AS t, sum(s.pgsize) AS b
			FROM dbstat AS s LEFT JOIN sqlite_master AS m ON m.name = s.name
			WHERE s.aggregate = 1 GROUP BY t ORDER BY b DESC, t LIMIT ?`, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var ts TableSpace
			if err := rows.Scan(&ts.Table, &ts.Bytes); err != nil {
				return err
			}
			out = append(out, ts)
		}
		return rows.Err()
	})
	return out, err
}
