package backend

import (
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/transcript"
)

// Cursor is a page's --before cursor as the reader that pages the
// transcript checked it, once, before any lookup (Transcripts.Cursor):
// its form, and that this kind of reader made it. History takes it as it
// is; what only the transcript can tell — that the cursor is of this
// session, and still names a message there — is checked as the page is
// read. The zero Cursor is none (the newest page).
type Cursor struct {
	raw   string
	local *transcript.Cursor // a local reader's
	gw    *GatewayCursor     // a gateway's
}

// GatewayCursor is a gateway cursor's session and place.
type GatewayCursor struct {
	SessionID string
	At        Anchor
}

// None reports whether there is no cursor.
func (c Cursor) None() bool { return c.raw == "" }

// String is the cursor as given.
func (c Cursor) String() string { return c.raw }

// Local is the local reader's cursor, nil when c is none or a gateway's.
func (c Cursor) Local() *transcript.Cursor { return c.local }

// Gateway is a gateway's cursor, nil when c is none or a local reader's.
func (c Cursor) Gateway() *GatewayCursor { return c.gw }

// LocalCursor checks before as a local reader's cursor: a gateway's is
// refused (it pages the gateway's window, not a local transcript),
// anything else must be a local cursor's form (exit 2). "" is none.
func LocalCursor(before string) (Cursor, error) {
	if before == "" {
		return Cursor{}, nil
	}
	if IsGatewayCursor(before) {
		return Cursor{}, apperr.Usagef("--before: the cursor was made over a gateway; pass it with the same --gateway or --context")
	}
	c, err := ParseCursor(before)
	if err != nil {
		return Cursor{}, err
	}
	return Cursor{raw: before, local: &c}, nil
}

// GatewayCursorOf checks before as a gateway's cursor (exit 2 when it is
// none: a local cursor's form is said as a local reader says it). "" is
// none.
func GatewayCursorOf(before string) (Cursor, error) {
	if before == "" {
		return Cursor{}, nil
	}
	if !IsGatewayCursor(before) {
		if _, err := ParseCursor(before); err != nil {
			return Cursor{}, err
		}
	}
	sid, a, err := ParseGatewayCursor(before)
	if err != nil {
		return Cursor{}, err
	}
	return Cursor{raw: before, gw: &GatewayCursor{SessionID: sid, At: a}}, nil
}

// ParseCursor decodes a local --before cursor (exit 2 when it is not one).
func ParseCursor(s string) (transcript.Cursor, error) {
	c, err := transcript.ParseCursor(strings.TrimSpace(s))
	if err != nil {
		return c, apperr.Usagef("invalid --before %q: %v; pass the nextCursor of an earlier page as printed", s, err)
	}
	return c, nil
}
