package local

import (
	"github.com/openclaw/sessions/internal/backend"
)

// Cursor checks before as this host's cursor: a gateway's is refused (it
// pages the gateway's window, not a local transcript), anything else must
// be a local cursor's form (exit 2).
func (l *Local) Cursor(before string) (backend.Cursor, error) { return backend.LocalCursor(before) }
