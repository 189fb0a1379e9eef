package ops

import (
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/sqlitewrite"
)

// Support is the 2026.8+ SQLite agent schema this build reads completely
// and the one it writes directly, from the constants the reader and the
// writer check (for `sessions version`; commands do not reach the storage
// packages themselves).
type Support struct {
	JSONReleases        string // the OpenClaw releases of the JSON era (sessions.json + JSONL)
	SQLiteSince         string // the first OpenClaw release of the per-agent SQLite store
	ReadSchema          int    // the newest agent schema read completely
	ReadSchemaOpenClaw  string // the OpenClaw releases of ReadSchema
	WriteSchema         int    // the only agent schema written directly
	WriteSchemaOpenClaw string // the OpenClaw release of WriteSchema
}

// Supported is this build's Support.
func Supported() Support {
	return Support{
		JSONReleases: era.JSONReleases, SQLiteSince: era.SQLiteSince,
		ReadSchema: sqlitestore.ReadSchemaVersion, ReadSchemaOpenClaw: sqlitestore.ReadSchemaOpenClaw,
		WriteSchema: sqlitewrite.SchemaVersion, WriteSchemaOpenClaw: "OpenClaw " + sqlitewrite.OpenClawVersion,
	}
}
