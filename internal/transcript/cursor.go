package transcript

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Era says where a transcript is stored, and so what a Cursor's position
// means.
type Era byte

const (
	// EraFile: a JSONL file; a position is the byte offset of a line start.
	EraFile Era = 'f'
	// EraSQLite: the 2026.8+ SQLite store's transcript_events; a position
	// is an event's seq.
	EraSQLite Era = 's'
)

func (e Era) String() string {
	switch e {
	case EraFile:
		return "a JSONL transcript file"
	case EraSQLite:
		return "a SQLite-era transcript"
	}
	return "an unknown transcript kind"
}

// Cursor names a place in one session's transcript: the line (or event) of
// the oldest message a history page returned. The page before it is every
// message whose line starts before Pos (JSONL) or whose seq is below Pos
// (SQLite). Both only grow at the end while OpenClaw appends, so a cursor
// stays valid — and its page the same — while the transcript grows.
type Cursor struct {
	Era       Era
	SessionID string
	// Pos is the byte offset of the line (EraFile) or the event's seq
	// (EraSQLite); always > 0 (nothing lies before position 0).
	Pos int64
	// Check is Fingerprint of that line (event): a cursor whose position
	// no longer holds the same line is refused rather than read from.
	Check uint32
}

// cursorMagic and cursorVersion open every encoded cursor.
const (
	cursorMagic   = 'H'
	cursorVersion = 1
	// maxCursorSessionID bounds the session id a cursor may carry.
	maxCursorSessionID = 256
	// fingerprintBytes: Fingerprint looks at most at this many bytes.
	fingerprintBytes = 256
)

var cursorEncoding = base64.RawURLEncoding.Strict()

// ErrBadCursor is wrapped by every error of ParseCursor.
var ErrBadCursor = errors.New("not a history cursor")

// ErrCursorMismatch is returned by a read whose Options.Before cursor does
// not name a line (event) of this transcript holding the line it was made
// from (the transcript was replaced or rewritten since).
var ErrCursorMismatch = errors.New("the cursor does not match this transcript (was it rewritten?)")

// Fingerprint is the check a Cursor carries for the line it names: CRC-32
// (IEEE) of the line's first bytes (up to its "\n", at most 256 bytes). A
// SQLite event is a former JSONL line and is fingerprinted the same way.
func Fingerprint(line []byte) uint32 {
	if len(line) > fingerprintBytes {
		line = line[:fingerprintBytes]
	}
	for i, c := range line {
		if c == '\n' {
			line = line[:i]
			break
		}
	}
	return crc32.ChecksumIEEE(line)
}

// String encodes the cursor as an opaque token of URL-safe base64
// characters (no quoting needed in a shell): magic, version, era, position,
// fingerprint, session id, and a CRC-32 of all of them, so that a typo or a
// truncated token is refused instead of read from.
func (c Cursor) String() string {
	b := make([]byte, 0, 16+len(c.SessionID)+binary.MaxVarintLen64)
	b = append(b, cursorMagic, cursorVersion, byte(c.Era))
	b = binary.AppendUvarint(b, uint64(c.Pos))
	b = binary.BigEndian.AppendUint32(b, c.Check)
	b = binary.AppendUvarint(b, uint64(len(c.SessionID)))
	b = append(b, c.SessionID...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return cursorEncoding.EncodeToString(b)
}

// ParseCursor decodes a token made by Cursor.String. Anything else — a
// typo, a truncated or padded token, another version, an empty session id,
// a position of 0 — is an error wrapping ErrBadCursor. A token that decodes
// re-encodes to itself.
func ParseCursor(s string) (Cursor, error) {
	bad := func(why string) (Cursor, error) {
		return Cursor{}, fmt.Errorf("%w: %s", ErrBadCursor, why)
	}
	if s == "" {
		return bad("empty")
	}
	if len(s) > 2*(maxCursorSessionID+32) {
		return bad("too long")
	}
	b, err := cursorEncoding.DecodeString(s)
	if err != nil {
		return bad("not base64url")
	}
	if len(b) < 3+1+4+1+4 {
		return bad("too short")
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return bad("checksum mismatch (mistyped or cut short?)")
	}
	if body[0] != cursorMagic {
		return bad("unknown format")
	}
	if body[1] != cursorVersion {
		return bad(fmt.Sprintf("unsupported version %d", body[1]))
	}
	var c Cursor
	c.Era = Era(body[2])
	if c.Era != EraFile && c.Era != EraSQLite {
		return bad("unknown transcript kind")
	}
	rest := body[3:]
	pos, n := binary.Uvarint(rest)
	if n <= 0 || pos == 0 || pos > 1<<62 {
		return bad("invalid position")
	}
	c.Pos, rest = int64(pos), rest[n:]
	if len(rest) < 4 {
		return bad("too short")
	}
	c.Check, rest = binary.BigEndian.Uint32(rest), rest[4:]
	l, n := binary.Uvarint(rest)
	if n <= 0 || l == 0 || l > maxCursorSessionID || uint64(len(rest)-n) != l {
		return bad("invalid session id")
	}
	c.SessionID = string(rest[n:])
	if c.String() != s {
		return bad("not in canonical form")
	}
	return c, nil
}
