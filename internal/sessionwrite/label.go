package sessionwrite

import (
	"unicode/utf16"

	"github.com/openclaw/sessions/internal/era"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/sqlitewrite"
)

// JSONMaxLabelLen is OpenClaw 2026.1.30's label limit (sessions.patch: JS
// string length after trimming); 2026.9.6 allows sqlitewrite.MaxLabelLen.
const JSONMaxLabelLen = 64

// GatewayLabelMax is the longest label (UTF-16 code units) a write
// through a gateway accepts before the gateway is asked: 2026.1.30's
// (JSONMaxLabelLen), the version whose limit is the strictest, since which
// version answers is known only once connected.
const GatewayLabelMax = JSONMaxLabelLen

// ParseLabel validates a label as the OpenClaw of the agent's store era
// does: "sqlite" (2026.8+) is 2026.9.6's parseSessionLabel (JavaScript
// trim, 1-512 UTF-16 code units, any characters); "json" 2026.1.30's (the
// same trim, 1-64). Era "" is the loosest (512): the check before the
// target's era is known. A write through a gateway checks
// Route.ParseLabel. Uniqueness is the writer's (per agent store, exact
// match).
func ParseLabel(e era.Era, raw string) (string, error) { return parseLabel(LabelMax(e), raw) }

// CheckLabel is ParseLabel before the target's era is known: the loosest
// rule (2026.9.6's 512 code units), as a request is checked before any
// store is read; the target's era decides once it is known.
func CheckLabel(raw string) (string, error) { return ParseLabel("", raw) }

// parseLabel is 2026.9.6's parseSessionLabel held to max code units.
func parseLabel(max int, raw string) (string, error) {
	l, err := sqlitewrite.ParseLabel(raw)
	if err != nil {
		return l, err
	}
	if len(utf16.Encode([]rune(l))) > max {
		return "", apperr.Usagef("invalid label: too long (max %d)", max)
	}
	return l, nil
}

// LabelMax is the longest label (UTF-16 code units) ParseLabel accepts
// for a store of era e written here ("": the loosest).
func LabelMax(e era.Era) int {
	if e == era.SQLite || e == "" {
		return sqlitewrite.MaxLabelLen
	}
	return JSONMaxLabelLen
}
