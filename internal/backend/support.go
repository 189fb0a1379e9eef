package backend

import (
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/sessionwrite"
)

// Support is what this build reads and writes where sessions live: the
// JSON-era releases, the first SQLite-era release, and the 2026.8+ agent
// schema read completely and the one written directly.
type Support struct {
	JSONReleases        string
	SQLiteSince         string
	ReadSchema          int
	ReadSchemaOpenClaw  string
	WriteSchema         int
	WriteSchemaOpenClaw string
}

// Supported is this build's Support.
func Supported() Support {
	w := sessionwrite.Supported()
	return Support{
		JSONReleases: era.JSONReleases, SQLiteSince: era.SQLiteSince,
		ReadSchema: w.ReadSchema, ReadSchemaOpenClaw: w.ReadSchemaOpenClaw,
		WriteSchema: w.WriteSchema, WriteSchemaOpenClaw: w.WriteSchemaOpenClaw,
	}
}
