package transcript

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Status is what one transcript line turned out to be. A SQLite transcript
// event (internal/sqlitestore) is one former line and is classified the
// same way, so both readers return the same messages for the same content.
type Status int

const (
	StatusSilent   Status = iota // blank, not a message, or filtered out: passed over
	StatusTorn                   // files only: the unterminated last line, unreadable (a writer mid-append)
	StatusMessage                // a message to return
	StatusCorrupt                // bad JSON or invalid UTF-8 (counted in Skipped)
	StatusOversize               // longer than MaxLineBytes (counted in Skipped)
)

// MaxLine is the longest line a read with these options accepts:
// MaxLineBytes, or DefaultMaxLineBytes when that is 0.
func (o Options) MaxLine() int64 {
	if o.MaxLineBytes <= 0 {
		return DefaultMaxLineBytes
	}
	return int64(o.MaxLineBytes)
}

// Classify applies chat.history's rules (format §4.4) to one complete line
// that is no longer than MaxLine, in order:
//
//  1. blank (JS trim() leaves nothing) → StatusSilent;
//  2. not valid UTF-8 or not valid JSON → StatusCorrupt;
//  3. no `message` object at the top level (JSON.parse semantics: the last
//     of duplicated keys wins) → StatusSilent;
//  4. message.role == "toolResult" and !includeTools → StatusSilent;
//  5. else StatusMessage, with the message object: a subslice of data
//     (capacity capped at its end), byte-identical to the line. Copy it
//     when data is reused.
//
// The size limit, and what a torn last line of a file is, are the caller's
// (they depend on where the line comes from).
func Classify(data []byte, includeTools bool) (json.RawMessage, Status) {
	if isBlank(data) {
		return nil, StatusSilent
	}
	if !utf8.Valid(data) || !json.Valid(data) {
		return nil, StatusCorrupt
	}
	ms, me, ok := lastKey(data, "message")
	if !ok || data[ms] != '{' {
		return nil, StatusSilent
	}
	msg := data[ms:me:me]
	if !includeTools && lastString(msg, "role") == "toolResult" {
		return nil, StatusSilent
	}
	return msg, StatusMessage
}

// Skips counts the unreadable lines of one read and words its warning.
type Skips struct {
	Corrupt, Oversize int
	// MaxLine is the limit Oversize lines exceeded (Options.MaxLine).
	MaxLine int64
}

// Add counts st when it is StatusCorrupt or StatusOversize.
func (s *Skips) Add(st Status) {
	switch st {
	case StatusCorrupt:
		s.Corrupt++
	case StatusOversize:
		s.Oversize++
	}
}

// Total is the number of lines skipped as unreadable (Result.Skipped).
func (s *Skips) Total() int { return s.Corrupt + s.Oversize }

// Summary words the count for a read's one warning, "" when nothing was
// skipped: "skipped N unreadable UNITs (WHY)", where WHY is corrupt when
// only corrupt lines were skipped, "longer than MaxLine bytes" when only
// oversize ones, else "MIXED or longer than MaxLine bytes".
func (s *Skips) Summary(unit, corrupt, mixed string) string {
	n := s.Total()
	if n == 0 {
		return ""
	}
	if n != 1 {
		unit += "s"
	}
	var why string
	switch {
	case s.Oversize == 0:
		why = corrupt
	case s.Corrupt == 0:
		why = fmt.Sprintf("longer than %d bytes", s.MaxLine)
	default:
		why = fmt.Sprintf("%s or longer than %d bytes", mixed, s.MaxLine)
	}
	return fmt.Sprintf("skipped %d unreadable %s (%s)", n, unit, why)
}

// warn reports a file read's skipped lines once through fn (may be nil).
func (s *Skips) warn(path string, fn func(string)) {
	if msg := s.Summary("line", "corrupt JSON or invalid UTF-8", "corrupt JSON, invalid UTF-8"); fn != nil && msg != "" {
		fn("transcript " + path + ": " + msg)
	}
}
