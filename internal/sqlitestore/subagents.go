package sqlitestore

import (
	"database/sql"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/openclaw/sessions/internal/sqlitedb"
)

// StateDBPath is OpenClaw 2026.8+'s shared state database,
// <state>/state/openclaw.sqlite (sub-agent registry, cron, devices…).
func StateDBPath(stateDir string) string { return sqlitedb.StatePath(stateDir) }

// SubagentRunRow is one row of the state database's subagent_runs table
// (OpenClaw's sub-agent registry): the indexed columns and the run record
// as OpenClaw serialised it.
type SubagentRunRow struct {
	RunID               string
	ChildSessionKey     string
	RequesterSessionKey string
	CreatedAt           int64
	PayloadJSON         string
}

// SubagentRuns reads the subagent_runs table of the state database at path,
// strictly read-only like Open (immutable when quiescent, else mode=ro,
// query_only; never a write transaction). Only that table (and
// sqlite_master) is read. A missing file or a database without the table is
// no rows and no error; errors are Open's (exit 10, or 11 when a writer
// holds the database past the busy timeout).
func SubagentRuns(path string, opts Options) ([]SubagentRunRow, error) {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = DefaultBusyTimeout
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	db := &DB{path: abs, opts: opts}
	if err := db.open(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer db.Close()
	var out []SubagentRunRow
	err = db.read("subagent runs", func(tx *sql.Tx) error {
		out = out[:0]
		var has bool
		if err := tx.QueryRow("SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'subagent_runs'").Scan(&has); err != nil || !has {
			return err
		}
		rows, err := tx.Query(`SELECT run_id, child_session_key, requester_session_key, created_at, payload_json
			FROM subagent_runs ORDER BY created_at DESC, run_id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r SubagentRunRow
			var payload sql.NullString
			if err := rows.Scan(&r.RunID, &r.ChildSessionKey, &r.RequesterSessionKey, &r.CreatedAt, &payload); err != nil {
				return err
			}
			r.PayloadJSON = payload.String
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
