package search

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/transcript"
)

// Message is the searchable part of one transcript event.
type Message struct {
	ID        string // the event's id (the entry id)
	Role      string // "user", "assistant" or "tool" (pi's toolResult)
	Timestamp int64  // epoch ms: the event's timestamp, else the message's; 0 unknown
	Text      string
}

// Roles are the values of --role.
var Roles = []string{"user", "assistant", "tool"}

// Extract returns the searchable message of one transcript line (a JSONL
// line, or a 2026.8+ transcript event), with the status transcript.Classify
// gives it (StatusCorrupt for invalid UTF-8 or JSON; StatusMessage when ok).
//
// The searchable text is what OpenClaw's own transcript index holds
// (2026.9 extractTranscriptIndexEntry): for user and assistant messages the
// content string, else message.text, else the text/input_text/output_text
// blocks joined by "\n", trimmed like JavaScript's trim(). Thinking blocks
// and images are never searched. With includeTools, tool results (role
// "tool") are searched too — their text blocks — and an assistant's tool
// calls add their name and, on the next line, their arguments' JSON as
// written.
// Other roles are not messages here. Without includeTools, a line whose
// message.role is "toolResult" is passed over unvalidated (never counted as
// corrupt).
func Extract(line []byte, includeTools bool) (Message, transcript.Status) {
	return extract(line, includeTools, nil)
}

// Masker masks what an agent reads (a *sanitize.Redactor): a text, and a
// JSON text value by value.
type Masker interface {
	Redact(text string) (string, bool)
	MaskJSON(raw []byte) ([]byte, bool)
	MaskMessage(raw json.RawMessage) (json.RawMessage, bool)
}

// ExtractMasked is Extract for an agent: each part of the searchable text
// is masked before it is joined — a text block as sessions_history masks
// it, a tool call's name as text and its arguments value by value — so
// that what is searched is what the agent may read.
func ExtractMasked(line []byte, includeTools bool, mask Masker) (Message, transcript.Status) {
	return extract(line, includeTools, mask)
}

// ExtractBoth is Extract with tool calls and, from the same reading of the
// line, the text Extract gives it without them: noTools, the very string
// m.Text when the two are the same text (an index keeps both: a message
// is a candidate for a query either holds). mask, when not nil, masks as
// ExtractMasked does. Its strings may be views of line, valid only while
// line is unchanged (an index copies them into its records at once).
func ExtractBoth(line []byte, mask Masker) (m Message, noTools string, st transcript.Status) {
	if m, noTools, st, ok := readFast(line, true, true, mask); ok {
		return m, noTools, st
	}
	m, st = extractReference(line, true, mask)
	if st != transcript.StatusMessage {
		return m, "", st
	}
	m0, _ := extractReference(line, false, mask)
	if m0.Text == m.Text {
		return m, m.Text, st
	}
	return m, m0.Text, st
}

func extract(line []byte, includeTools bool, mask Masker) (Message, transcript.Status) {
	if m, st, ok := extractFast(line, includeTools, mask); ok {
		return m, st
	}
	return extractReference(line, includeTools, mask)
}

// extractReference is the definition of extract, over gjson: what
// extractFast, which answers for the lines it reads without doubt, must
// equal (FuzzExtractIsItsReference), and what decides the others.
func extractReference(line []byte, includeTools bool, mask Masker) (Message, transcript.Status) {
	if !includeTools && gjson.GetBytes(line, "message.role").Str == "toolResult" {
		// A tool result is never a hit here: passed over without the
		// validation of its (often large) body.
		return Message{}, transcript.StatusSilent
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return Message{}, transcript.StatusSilent
	}
	if !utf8.Valid(line) || !gjson.ValidBytes(line) {
		return Message{}, transcript.StatusCorrupt
	}
	// One pass over the top-level keys; the last of duplicated keys wins,
	// as with JSON.parse.
	var msg, id, ts gjson.Result
	gjson.ParseBytes(line).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "message":
			msg = v
		case "id":
			id = v
		case "timestamp":
			ts = v
		}
		return true
	})
	if !msg.IsObject() {
		return Message{}, transcript.StatusSilent
	}
	role := msg.Get("role").String()
	switch role {
	case "user", "assistant":
	case "toolResult":
		if !includeTools {
			return Message{}, transcript.StatusSilent
		}
		role = "tool"
	default:
		return Message{}, transcript.StatusSilent
	}
	m := Message{Role: role, Text: messageText(msg, includeTools && role == "assistant", mask)}
	if id.Type == gjson.String {
		m.ID = id.Str
	}
	m.Timestamp = timestamp(ts)
	if m.Timestamp == 0 {
		m.Timestamp = timestamp(msg.Get("timestamp"))
	}
	return m, transcript.StatusMessage
}

// timestamp reads an ISO 8601 string or a number of epoch ms.
func timestamp(v gjson.Result) int64 {
	switch v.Type {
	case gjson.Number:
		return int64(v.Num)
	case gjson.String:
		if t, err := time.Parse(time.RFC3339Nano, v.Str); err == nil {
			return t.UnixMilli()
		}
	}
	return 0
}

func messageText(msg gjson.Result, toolCalls bool, mask Masker) string {
	if mask != nil {
		// The whole message masked as history masks it (MaskMessage), then
		// its text taken as stored: what is searched is what the agent
		// reads of it — a secret split across two text blocks included,
		// which no block masked on its own would hide.
		masked, _ := mask.MaskMessage(json.RawMessage(msg.Raw))
		msg, mask = gjson.ParseBytes(masked), nil
	}
	content := msg.Get("content")
	var parts []string
	text := msg.Get("text")
	masked := func(s string) string {
		if mask != nil {
			s, _ = mask.Redact(s)
		}
		return s
	}
	switch {
	case content.Type == gjson.String:
		parts = append(parts, masked(content.Str))
	case text.Type == gjson.String:
		parts = append(parts, masked(text.Str))
	}
	if content.IsArray() {
		content.ForEach(func(_, b gjson.Result) bool {
			switch b.Get("type").Str {
			case "text", "input_text", "output_text":
				if t := b.Get("text"); t.Type == gjson.String && text.Type != gjson.String {
					parts = append(parts, masked(t.Str))
				}
			case "toolCall":
				if toolCalls {
					// Name and arguments on lines of their own: a join that a
					// JSON writer never writes verbatim (a space would make
					// "NAME {" searchable text the raw line does not hold,
					// and the byte pre-filter unsound).
					args := b.Get("arguments").Raw
					if mask != nil {
						if out, ok := mask.MaskJSON([]byte(args)); ok {
							args = string(out)
						}
					}
					parts = append(parts, strings.TrimSpace(masked(b.Get("name").String())+"\n"+args))
				}
			}
			return true
		})
	}
	return jsTrim(strings.Join(parts, "\n"))
}

// jsTrim trims like JavaScript's String.prototype.trim (which OpenClaw's
// index applies): Unicode White_Space minus U+0085, plus U+FEFF.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return r == '\uFEFF' || (r != '\u0085' && unicode.IsSpace(r))
	})
}

// Snippet cuts text around the match [start, end): up to before bytes of
// context before it and after bytes after it, at rune boundaries, with
// line breaks and tabs as spaces and "…" where text was cut. It returns the
// snippet and the match's place in it.
func Snippet(text string, start, end, before, after int) (snip string, ms, me int) {
	lo := max(0, start-before)
	for lo > 0 && !utf8.RuneStart(text[lo]) {
		lo++
	}
	hi := min(len(text), end+after)
	for hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi--
	}
	var b strings.Builder
	if lo > 0 {
		b.WriteString("…")
	}
	flat := func(s string) {
		for _, r := range s {
			if r == '\n' || r == '\r' || r == '\t' {
				r = ' '
			}
			b.WriteRune(r)
		}
	}
	flat(text[lo:start])
	ms = b.Len()
	flat(text[start:end])
	me = b.Len()
	flat(text[end:hi])
	if hi < len(text) {
		b.WriteString("…")
	}
	return b.String(), ms, me
}
