package sessionwrite

import (
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/sqlitewrite"
)

// Support is the 2026.8+ agent schema this build reads completely and the
// one it writes directly, from the constants the reader and the writer
// check.
type Support struct {
	ReadSchema          int    // the newest agent schema read completely
	ReadSchemaOpenClaw  string // the OpenClaw releases of ReadSchema
	WriteSchema         int    // the only agent schema written directly
	WriteSchemaOpenClaw string // the OpenClaw release of WriteSchema
}

// Supported is this build's Support.
func Supported() Support {
	return Support{
		ReadSchema: sqlitestore.ReadSchemaVersion, ReadSchemaOpenClaw: sqlitestore.ReadSchemaOpenClaw,
		WriteSchema: sqlitewrite.SchemaVersion, WriteSchemaOpenClaw: "OpenClaw " + sqlitewrite.OpenClawVersion,
	}
}
