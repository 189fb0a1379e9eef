// Package schema24 turns a copy of the OpenClaw 2026.9.6 sample state
// (agent schema 23, state schema 18) into what OpenClaw 2026.9.8 leaves after
// its startup migration (agent schema 24, state schema 19), applying exactly
// the schema and row changes OpenClaw's v2026.9.8 defines, and nothing else:
//
//   - agent databases: session_nodes gains snapshot_revision INTEGER NOT NULL
//     DEFAULT 0 (ALTER TABLE: appended after the last column); the new table
//     session_entry_snapshots (session_key, field, value_json; STRICT,
//     WITHOUT ROWID, ON DELETE CASCADE from session_nodes) with its three
//     triggers that bump session_nodes.snapshot_revision; every entry's
//     sessionDiffBaseline, skillsSnapshot and systemPromptReport move out of
//     entry_json into that table (entry_json keeps the other members in
//     their order, byte for byte; entry_valid 1; snapshot_revision = the
//     number of fields moved); PRAGMA user_version and schema_meta 24;
//   - the state database: worktrees gains gc_protection_json TEXT; its
//     agent_databases registry rows say 24; PRAGMA user_version and
//     schema_meta 19.
//
// Nothing else changes (no other table, index or trigger differs between
// 23 and 24). The DDL below is schema data from OpenClaw's
// src/state/openclaw-agent-schema.sql at v2026.9.8. Output is deterministic.
// Only tests import it; TestFixture regenerates testdata/state-2026.9.8.
package schema24

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// MigratedAt is the fixed time (ms) written as schema_meta.updated_at, so
// the fixture is reproducible: 2026-10-03T12:00:00Z, 2026.9.8's release day.
const MigratedAt = 1791028800000

// AppVersion is what OpenClaw 2026.9.8 writes as schema_meta.app_version.
const AppVersion = "2026.9.8"

// SnapshotFields are the entry members schema 24 keeps out of entry_json,
// in OpenClaw's order.
var SnapshotFields = []string{"sessionDiffBaseline", "skillsSnapshot", "systemPromptReport"}

// SnapshotsDDL is session_entry_snapshots and its triggers, verbatim from
// OpenClaw's v2026.9.8 agent schema.
const SnapshotsDDL = `CREATE TABLE IF NOT EXISTS session_entry_snapshots (
  session_key TEXT NOT NULL,
  field TEXT NOT NULL CHECK (field IN ('sessionDiffBaseline', 'skillsSnapshot', 'systemPromptReport')),
  value_json TEXT NOT NULL,
  PRIMARY KEY (session_key, field),
  FOREIGN KEY (session_key) REFERENCES session_nodes(session_key) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE TRIGGER IF NOT EXISTS session_entry_snapshots_after_insert
AFTER INSERT ON session_entry_snapshots
BEGIN
  UPDATE session_nodes SET snapshot_revision = snapshot_revision + 1
  WHERE session_key = NEW.session_key;
END;

CREATE TRIGGER IF NOT EXISTS session_entry_snapshots_after_update
AFTER UPDATE OF session_key, field, value_json ON session_entry_snapshots
WHEN NEW.session_key IS NOT OLD.session_key
  OR NEW.field IS NOT OLD.field OR NEW.value_json IS NOT OLD.value_json
BEGIN
  UPDATE session_nodes SET snapshot_revision = snapshot_revision + 1
  WHERE session_key IN (OLD.session_key, NEW.session_key);
END;

CREATE TRIGGER IF NOT EXISTS session_entry_snapshots_after_delete
AFTER DELETE ON session_entry_snapshots
BEGIN
  UPDATE session_nodes SET snapshot_revision = snapshot_revision + 1
  WHERE session_key = OLD.session_key;
END;
`

func open(path string) (*sql.DB, error) {
	u := url.URL{Scheme: "file", Path: path}
	q := url.Values{}
	q.Add("_pragma", "foreign_keys(1)")
	u.RawQuery = q.Encode()
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// Build copies the 2026.9.6 state dir src to dst (which must not exist)
// and migrates every database in it to 2026.9.8's schemas.
func Build(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("%s exists", dst)
	}
	if err := copyTree(src, dst); err != nil {
		return err
	}
	agents, err := filepath.Glob(filepath.Join(dst, "agents", "*", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		return err
	}
	for _, p := range agents {
		if err := MigrateAgent(p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	if st := filepath.Join(dst, "state", "openclaw.sqlite"); exists(st) {
		if err := MigrateState(st); err != nil {
			return fmt.Errorf("%s: %w", st, err)
		}
	}
	return nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// MigrateAgent migrates one agent database from schema 23 to 24 in one
// transaction.
func MigrateAgent(path string) error {
	db, err := open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	var uv int
	if err := db.QueryRow("PRAGMA user_version").Scan(&uv); err != nil {
		return err
	}
	if uv != 23 {
		return fmt.Errorf("agent schema %d, not 23", uv)
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The canonical-validation queue is derived work OpenClaw's canonical
	// owner drains after startup; the row rewrites below must not leave
	// entries in it that the migrated 9.8 store does not have.
	var pendingBefore int
	if err := tx.QueryRow("SELECT count(*) FROM session_canonical_validation_pending").Scan(&pendingBefore); err != nil {
		return err
	}
	if _, err := tx.Exec("ALTER TABLE session_nodes ADD COLUMN snapshot_revision INTEGER NOT NULL DEFAULT 0"); err != nil {
		return err
	}
	if _, err := tx.Exec(SnapshotsDDL); err != nil {
		return err
	}
	type row struct {
		key, entry string
		valid      int
	}
	rows, err := tx.Query("SELECT session_key, entry_json, entry_valid FROM session_nodes ORDER BY session_key")
	if err != nil {
		return err
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.key, &r.entry, &r.valid); err != nil {
			rows.Close()
			return err
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range all {
		hot, snaps, err := Split([]byte(r.entry))
		if err != nil {
			return fmt.Errorf("session %q: %w", r.key, err)
		}
		if len(snaps) == 0 {
			continue
		}
		for _, f := range SnapshotFields {
			v, ok := snaps[f]
			if !ok {
				continue
			}
			if _, err := tx.Exec("INSERT INTO session_entry_snapshots (session_key, field, value_json) VALUES (?, ?, ?)", r.key, f, string(v)); err != nil {
				return err
			}
		}
		// Two statements, as the entry_json update trigger resets
		// entry_valid to 0 after the row is written.
		if _, err := tx.Exec("UPDATE session_nodes SET entry_json = ? WHERE session_key = ?", string(hot), r.key); err != nil {
			return err
		}
		if _, err := tx.Exec("UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?", r.key); err != nil {
			return err
		}
	}
	if pendingBefore == 0 {
		if _, err := tx.Exec("DELETE FROM session_canonical_validation_pending"); err != nil {
			return err
		}
	}
	if _, err := tx.Exec("UPDATE schema_meta SET schema_version = 24, app_version = ?, updated_at = ? WHERE meta_key = 'primary'", AppVersion, MigratedAt); err != nil {
		return err
	}
	if _, err := tx.Exec("PRAGMA user_version = 24"); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return vacuum(db)
}

// MigrateState migrates the state database from schema 18 to 19.
func MigrateState(path string) error {
	db, err := open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	var uv int
	if err := db.QueryRow("PRAGMA user_version").Scan(&uv); err != nil {
		return err
	}
	if uv != 18 {
		return fmt.Errorf("state schema %d, not 18", uv)
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow("SELECT count(*) FROM pragma_table_info('worktrees') WHERE name = 'gc_protection_json'").Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		if _, err := tx.Exec("ALTER TABLE worktrees ADD COLUMN gc_protection_json TEXT"); err != nil {
			return err
		}
	}
	if _, err := tx.Exec("UPDATE agent_databases SET schema_version = 24 WHERE schema_version = 23"); err != nil {
		return err
	}
	if _, err := tx.Exec("UPDATE schema_meta SET schema_version = 19, app_version = ?, updated_at = ? WHERE meta_key = 'primary'", AppVersion, MigratedAt); err != nil {
		return err
	}
	if _, err := tx.Exec("PRAGMA user_version = 19"); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return vacuum(db)
}

// vacuum rewrites the file so freed pages and the order rows were written in
// leave nothing behind that depends on the run.
func vacuum(db *sql.DB) error {
	_, err := db.Exec("VACUUM")
	return err
}

// SetUserVersion sets PRAGMA user_version and the schema_meta 'primary' row
// of the database at path to v: a store "newer than every schema sessions
// knows" for tests.
func SetUserVersion(path string, v int) error {
	db, err := open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE schema_meta SET schema_version = ? WHERE meta_key = 'primary'", v); err != nil {
		return err
	}
	_, err = db.Exec(fmt.Sprintf("PRAGMA user_version = %d", v))
	return err
}

// Split removes the snapshot fields from the JSON object entry, as
// OpenClaw's splitSessionEntrySnapshots does ({sessionDiffBaseline,
// skillsSnapshot, systemPromptReport, ...hot}): hot is the object without
// them, its other members byte for byte and in order (entry_json is compact
// JSON.stringify output, so removing members yields JSON.stringify(hot));
// snaps maps each field present to its value's text. A field whose value is
// absent stays absent (JSON.stringify(undefined) writes nothing).
func Split(entry []byte) (hot []byte, snaps map[string][]byte, err error) {
	dec := json.NewDecoder(bytes.NewReader(entry))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("entry_json is not an object")
	}
	isSnap := map[string]bool{}
	for _, f := range SnapshotFields {
		isSnap[f] = true
	}
	snaps = map[string][]byte{}
	var members [][]byte
	for dec.More() {
		start := dec.InputOffset()
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		end := dec.InputOffset()
		member := bytes.TrimLeft(entry[start:end], ", \t\r\n")
		if isSnap[key] {
			snaps[key] = []byte(v)
			continue
		}
		members = append(members, member)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, fmt.Errorf("trailing data after the entry object")
	}
	if len(snaps) == 0 {
		return entry, nil, nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m)
	}
	b.WriteByte('}')
	return b.Bytes(), snaps, nil
}

func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if rel == "PROVENANCE.md" {
			return nil // the 9.6 one; the 9.8 fixture has its own
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
