package sqlitewrite

import (
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/sqlitestore"
)

// SchemaVersion is the only agent schema this package writes: OpenClaw
// 2026.9.6's (package.json openclaw.schemaVersions.agent = 23). Contracts
// change at every bump, so any other version is refused.
const SchemaVersion = 23

// OpenClawVersion names the release whose write protocol this package follows.
const OpenClawVersion = "2026.9.6"

// schemaObject is one sqlite_master row.
type schemaObject struct {
	Type, Name, Table, SQL string
}

// normSQL makes two definitions comparable: SQLite keeps CREATE statements
// as written, so only whitespace runs are folded.
func normSQL(s string) string { return strings.Join(strings.Fields(s), " ") }

// touchedTables are the tables of schema96 (built on first use).
var touchedTables = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, o := range schema96 {
		m[o.Table] = true
	}
	return m
})

// SchemaAdvice says what helps when an agent database has schema uv, not
// SchemaVersion: for a newer store (OpenClaw 2026.9.8 and later) the
// running gateway, which writes every schema its OpenClaw knows, or a newer
// sessions; openclaw doctor --fix only migrates older stores forward, so it
// is named for those alone.
func SchemaAdvice(uv int64) string {
	switch {
	case uv > sqlitestore.ReadSchemaVersion:
		return fmt.Sprintf("agent schema %d is newer than any this version of sessions knows (the newest is %d, %s): write through the running OpenClaw gateway (start it, or name one with --gateway or --context), or use a newer sessions",
			uv, sqlitestore.ReadSchemaVersion, sqlitestore.ReadSchemaOpenClaw)
	case uv > SchemaVersion:
		return fmt.Sprintf("agent schema %d is %s's, which sessions reads but writes only through the running OpenClaw gateway (start it, or name one with --gateway or --context)",
			uv, sqlitestore.ReadSchemaOpenClaw)
	default:
		return fmt.Sprintf("agent schema %d is an older OpenClaw's: OpenClaw migrates it when it starts (or run openclaw doctor --fix), then sessions writes it", uv)
	}
}

// checkSchema verifies, on tx, that the database is exactly agent schema 23
// of agent agentID with 2026.9.6's definitions of every object a write can
// reach. It returns the schema cookie (PRAGMA schema_version), which a later
// transaction compares to know nothing was redefined since.
func checkSchema(tx dbtx, path, agentID string) (int64, error) {
	var uv int64
	if err := tx.QueryRow("PRAGMA user_version").Scan(&uv); err != nil {
		return 0, err
	}
	if uv != SchemaVersion {
		return 0, apperr.Statef("%s has agent schema %d; sessions writes only agent schema %d (OpenClaw %s): refusing to write, nothing changed; %s",
			path, uv, SchemaVersion, OpenClawVersion, SchemaAdvice(uv)).With("schemaVersion", uv).With("supportedSchemaVersion", SchemaVersion)
	}
	var role, metaAgent string
	var mv int64
	err := tx.QueryRow("SELECT role, schema_version, agent_id FROM schema_meta WHERE meta_key = 'primary'").Scan(&role, &mv, &metaAgent)
	if err != nil {
		if err == sql.ErrNoRows {
			return 0, apperr.Statef("%s has no schema_meta 'primary' row; sessions writes only agent schema %d (OpenClaw %s): refusing to write", path, SchemaVersion, OpenClawVersion)
		}
		return 0, err
	}
	if role != "agent" || mv != SchemaVersion || metaAgent != agentID {
		return 0, apperr.Statef("%s schema_meta says role %q, schema %d, agent %q; sessions writes only role \"agent\", agent schema %d (OpenClaw %s) of agent %q: refusing to write",
			path, role, mv, metaAgent, SchemaVersion, OpenClawVersion, agentID).With("schemaVersion", mv).With("supportedSchemaVersion", SchemaVersion)
	}
	var enc string
	if err := tx.QueryRow("PRAGMA encoding").Scan(&enc); err != nil {
		return 0, err
	}
	if enc != "UTF-8" {
		return 0, apperr.Statef("%s has encoding %s; OpenClaw %s writes UTF-8 databases: refusing to write", path, enc, OpenClawVersion)
	}
	have := map[string]schemaObject{}
	rows, err := tx.Query("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master")
	if err != nil {
		return 0, err
	}
	var all []schemaObject
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.Type, &o.Name, &o.Table, &o.SQL); err != nil {
			rows.Close()
			return 0, err
		}
		all = append(all, o)
		if touchedTables()[o.Table] {
			have[o.Name] = o
		}
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	drift := func(what string) error {
		return apperr.Statef("%s differs from agent schema %d as OpenClaw %s defines it (%s): refusing to write", path, SchemaVersion, OpenClawVersion, what)
	}
	for _, want := range schema96 {
		got, ok := have[want.Name]
		if !ok {
			return 0, drift(fmt.Sprintf("%s %s is missing", want.Type, want.Name))
		}
		if got.Type != want.Type || got.Table != want.Table || normSQL(got.SQL) != normSQL(want.SQL) {
			return 0, drift(fmt.Sprintf("%s %s has another definition", want.Type, want.Name))
		}
		delete(have, want.Name)
	}
	for name, o := range have {
		return 0, drift(fmt.Sprintf("unknown %s %s on table %s", o.Type, name, o.Table))
	}
	// A table we do not know that references one we write would be reached
	// by a cascade or checked by a foreign key: refuse it too.
	for _, o := range all {
		if o.Type != "table" || touchedTables()[o.Name] {
			continue
		}
		if strings.Contains(o.SQL, "REFERENCES") {
			frows, err := tx.Query(`SELECT "table" FROM pragma_foreign_key_list(?)`, o.Name)
			if err != nil {
				return 0, err
			}
			for frows.Next() {
				var ref string
				if err := frows.Scan(&ref); err != nil {
					frows.Close()
					return 0, err
				}
				if touchedTables()[ref] {
					frows.Close()
					return 0, drift(fmt.Sprintf("table %s references %s", o.Name, ref))
				}
			}
			if err := frows.Close(); err != nil {
				return 0, err
			}
		}
	}
	var cookie int64
	if err := tx.QueryRow("PRAGMA schema_version").Scan(&cookie); err != nil {
		return 0, err
	}
	return cookie, nil
}
