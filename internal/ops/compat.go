package ops

import "github.com/openclaw/sessions/internal/backend"

// Support is what this build reads and writes (for `sessions version`;
// commands do not reach the storage packages themselves): the JSON-era
// releases, the first SQLite-era release, and the 2026.8+ agent schema
// read completely and the one written directly.
type Support struct {
	JSONReleases        string // the OpenClaw releases of the JSON era (sessions.json + JSONL)
	SQLiteSince         string // the first OpenClaw release of the per-agent SQLite store
	ReadSchema          int    // the newest agent schema read completely
	ReadSchemaOpenClaw  string // the OpenClaw releases of ReadSchema
	WriteSchema         int    // the only agent schema written directly
	WriteSchemaOpenClaw string // the OpenClaw release of WriteSchema
}

// Supported is this build's Support.
func Supported() Support { return Support(backend.Supported()) }
