package sqlitestore

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/fsutil"
)

// detectBusyTimeout bounds the read of the migration receipts in Detect.
const detectBusyTimeout = 2 * time.Second

// Detect decides which store of agentID is read — sessions.json at
// jsonStorePath or <stateDir>/agents/<agentID>/agent/openclaw-agent.sqlite —
// and says why, in words fit for a warning or `agents` output. It never
// fails: what it cannot read it leaves out of the decision.
//
// With only one of them present, that one. With both (a half-migrated host):
//
//  1. sqlite, when OpenClaw's own import receipt names this exact file: a
//     row of migration_sources in <stateDir>/state/openclaw.sqlite with
//     target_table "session_nodes" and the SHA-256 of the current
//     sessions.json. `openclaw doctor` imported it and it has not changed
//     since: a retained migration source, every row of which is in SQLite.
//  2. json, when sessions.json was modified after the SQLite store was last
//     written (the newer of the database's and its -wal's mtimes). Nothing
//     of 2026.8+ writes sessions.json, and a 2026.8+ gateway refuses to start
//     beside an un-imported one; so a sessions.json newer than the database
//     is being written by a file-era OpenClaw (a downgrade after `openclaw
//     doctor --session-sqlite restore`, which puts sessions.json back) and is
//     the live store. The database is what that downgrade left behind.
//  3. sqlite otherwise: sessions.json is older than the last write to the
//     database — a leftover of the upgrade that 2026.8+ never reads (`openclaw
//     doctor --fix` imports or archives it). Ties go to SQLite: for 2026.8+ it
//     is the authority.
func Detect(stateDir, agentID, jsonStorePath string) (era.Era, string) {
	dbPath := Path(stateDir, agentID)
	jfi, jerr := os.Stat(jsonStorePath)
	sfi, serr := os.Stat(dbPath)
	hasJSON := jerr == nil && jfi.Mode().IsRegular()
	// A FIFO or device at the database's path is still the agent's store:
	// opening it is refused (exit 10, not a regular file), where taking the
	// agent for one without sessions would hide it.
	hasDB := serr == nil && !sfi.IsDir()
	switch {
	case !hasJSON && !hasDB:
		return era.None, fmt.Sprintf("neither %s nor %s exists", jsonStorePath, dbPath)
	case !hasDB:
		return era.JSON, fmt.Sprintf("only %s exists (sessions.json layout, OpenClaw 2026.7 and earlier)", jsonStorePath)
	case !hasJSON:
		return era.SQLite, fmt.Sprintf("only %s exists (SQLite store of OpenClaw 2026.8 and later)", dbPath)
	}
	if at, ok := importedAt(stateDir, jsonStorePath, jfi.Size()); ok {
		return era.SQLite, fmt.Sprintf("%s was imported into %s by openclaw doctor (%s, receipt in state/openclaw.sqlite) and is unchanged since: a retained migration source; the SQLite store is authoritative",
			jsonStorePath, dbPath, at)
	}
	jm := jfi.ModTime()
	sm := sfi.ModTime()
	if wfi, err := os.Stat(dbPath + "-wal"); err == nil && wfi.ModTime().After(sm) {
		sm = wfi.ModTime()
	}
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	if jm.After(sm) {
		return era.JSON, fmt.Sprintf("%s (modified %s) is newer than the last write to %s (%s) and was never imported: a file-era OpenClaw (2026.7 or earlier, e.g. after openclaw doctor --session-sqlite restore) is writing it; OpenClaw 2026.8+ does not start beside an un-imported sessions.json, so the SQLite store is the stale one",
			jsonStorePath, ts(jm), dbPath, ts(sm))
	}
	return era.SQLite, fmt.Sprintf("%s (modified %s) is older than the last write to %s (%s): a leftover that OpenClaw 2026.8+ no longer reads (openclaw doctor --fix imports or archives it); the SQLite store is authoritative",
		jsonStorePath, ts(jm), dbPath, ts(sm))
}

// importedAt looks for OpenClaw's import receipt of the sessions.json at
// jsonPath (size bytes) in <stateDir>/state/openclaw.sqlite. Only the
// migration_sources table is read. The file is hashed only when a receipt of
// its size exists.
func importedAt(stateDir, jsonPath string, size int64) (string, bool) {
	statePath := StateDBPath(stateDir)
	if _, err := os.Stat(statePath); err != nil {
		return "", false
	}
	db := &DB{path: statePath, opts: Options{BusyTimeout: detectBusyTimeout}}
	if err := db.open(); err != nil {
		return "", false
	}
	defer db.Close()
	type receipt struct {
		sum string
		at  int64
	}
	var receipts []receipt
	err := db.read("read migration receipts", func(tx *sql.Tx) error {
		receipts = nil
		var n int
		if err := tx.QueryRow("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'migration_sources'").Scan(&n); err != nil || n == 0 {
			return err
		}
		rows, err := tx.Query(`SELECT source_sha256, imported_at FROM migration_sources
			WHERE target_table = 'session_nodes' AND source_sha256 IS NOT NULL
			AND (source_size_bytes IS NULL OR source_size_bytes = ?)`, size)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r receipt
			if err := rows.Scan(&r.sum, &r.at); err != nil {
				return err
			}
			receipts = append(receipts, r)
		}
		return rows.Err()
	})
	if err != nil || len(receipts) == 0 {
		return "", false
	}
	f, err := fsutil.OpenRegular(jsonPath)
	if err != nil {
		return "", false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", false
	}
	sum := hex.EncodeToString(h.Sum(nil))
	for _, r := range receipts {
		if r.sum == sum {
			return "imported " + time.UnixMilli(r.at).UTC().Format(time.RFC3339), true
		}
	}
	return "", false
}
