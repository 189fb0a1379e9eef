package transcript

import (
	"encoding/json"
	"fmt"
)

// Line is one line of a transcript as Stream reads it (or one event of a
// 2026.8+ store, a former line).
type Line struct {
	// Pos is where the line is stored: its byte offset (a file) or its
	// event's seq (SQLite) — what a Cursor names.
	Pos int64
	// Raw is the line as stored, without its "\n" (nil for an oversize
	// line). It is only valid until the callback returns.
	Raw []byte
	// Newline: a "\n" ended the line in the file (always true for events).
	Newline bool
	// Message is the line's message object (a slice of Raw), nil when the
	// line has none; Status says what the line is (Classify's rules, tool
	// results always included).
	Message json.RawMessage
	Status  Status
	// Check is the line's Fingerprint (for a message), what a Cursor checks.
	Check uint32
}

// Stream calls fn with every line of the transcript at path from the line
// at byte offset from (0, or a line start) on, in file order, without
// holding more than one line: the export of a whole conversation. Lines
// are classified as ReadMessages classifies them (tool results included);
// unreadable lines are reported once through opts.Warn. fn's error stops
// the read and is returned as is.
func Stream(path string, from int64, opts Options, fn func(Line) error) error {
	f, size, err := open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	opts.IncludeTools = true
	rd := newReader(f, opts)
	sk := Skips{MaxLine: rd.maxLine}
	lines := newFwdLines(f, size)
	if from > 0 {
		if from > size {
			return fmt.Errorf("read transcript %s: %w (size %d, offset %d)", path, ErrShrunk, size, from)
		}
		if _, err := lines.br.Discard(int(from)); err != nil {
			return fmt.Errorf("read transcript %s: %w", path, err)
		}
		lines.off = from
	}
	for {
		ln, ok, err := lines.next()
		if err != nil {
			return fmt.Errorf("read transcript %s: %w", path, err)
		}
		if !ok {
			break
		}
		raw := ln.data
		if raw == nil && ln.len() <= rd.maxLine {
			raw = make([]byte, ln.len())
			if err := readFull(f, raw, ln.start); err != nil {
				return fmt.Errorf("read transcript %s: %w", path, err)
			}
		}
		l := Line{Pos: ln.start, Raw: raw, Newline: !ln.final}
		switch {
		case ln.len() > rd.maxLine:
			l.Status = StatusOversize
			if ln.final {
				l.Status = StatusTorn
			}
		default:
			l.Message, l.Status = Classify(raw, true)
			if l.Status == StatusCorrupt && ln.final {
				l.Status = StatusTorn
			}
			if l.Status == StatusMessage {
				l.Check = Fingerprint(raw)
			}
		}
		sk.Add(l.Status)
		if err := fn(l); err != nil {
			return err
		}
	}
	sk.warn(path, opts.Warn)
	return nil
}
