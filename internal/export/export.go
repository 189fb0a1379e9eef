// Package export renders a whole conversation (or a range of it) for
// people and archives: an HTML page, Markdown, one JSON document, or
// OpenClaw's own JSONL lines. It is pure: a Writer gets the session's
// facts, then the transcript's lines one at a time, oldest first, and
// writes each as it comes, so a transcript of any size is exported in
// bounded memory. Reading, ranges and masking are the caller's
// (internal/ops).
package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/jsonx"
)

// Format is an export's format.
type Format string

// The formats.
const (
	HTML     Format = "html"
	Markdown Format = "markdown"
	JSON     Format = "json"
	JSONL    Format = "jsonl"
)

// Formats are the formats, in the order help lists them.
var Formats = []string{string(Markdown), string(JSON), string(JSONL), string(HTML)}

// ParseFormat checks a --format value (exit 2 when it is none).
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case HTML, Markdown, JSON, JSONL:
		return f, nil
	case "md":
		return Markdown, nil
	}
	return "", apperr.Usagef("invalid --format %q: one of %s", s, strings.Join(Formats, ", "))
}

// FormatOfFile is the format a file name calls for (".html", ".md",
// ".json", ".jsonl"), "" for another name.
func FormatOfFile(name string) Format {
	n := strings.ToLower(name)
	switch {
	case strings.HasSuffix(n, ".html"), strings.HasSuffix(n, ".htm"):
		return HTML
	case strings.HasSuffix(n, ".md"), strings.HasSuffix(n, ".markdown"):
		return Markdown
	case strings.HasSuffix(n, ".jsonl"):
		return JSONL
	case strings.HasSuffix(n, ".json"):
		return JSON
	}
	return ""
}

// Meta is what an export states about the session before its messages.
type Meta struct {
	Key       string `json:"key,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	Agent     string `json:"agent,omitempty"`
	Label     string `json:"label,omitempty"`
	Channel   string `json:"channel,omitempty"`
	Kind      string `json:"kind,omitempty"`
	// Where the session was read: "this host" or the gateway's address.
	Where string `json:"where,omitempty"`
	// CreatedAt, UpdatedAt: epoch ms (0: unknown).
	CreatedAt int64 `json:"createdAt,omitempty"`
	UpdatedAt int64 `json:"updatedAt,omitempty"`
	// Model is the entry's model; Tokens its stored totals.
	Model  string `json:"model,omitempty"`
	Tokens int64  `json:"totalTokens,omitempty"`
	// Orphan: the transcript is an orphan (no entry points to it).
	Orphan bool `json:"orphan,omitempty"`
	// Entry is the session's entry as stored (json only), nil when none.
	Entry json.RawMessage `json:"entry,omitempty"`
	// Range states the range exported ("" when the whole conversation).
	Range string `json:"range,omitempty"`
	// Lineage: earlier transcripts of the session are exported too.
	Lineage bool `json:"lineage"`
	// Redacted: secrets were masked (--redact, or for a requester).
	Redacted   bool `json:"redacted"`
	NoTools    bool `json:"noTools,omitempty"`
	NoThinking bool `json:"noThinking,omitempty"`
	// Window states a limit of where the session was read that cut the
	// conversation (over a gateway: chat.history's window), "" otherwise.
	Window string `json:"window,omitempty"`
}

// Segment is one transcript of the export: the session's current one, or
// an earlier one its lineage holds.
type Segment struct {
	SessionID string `json:"sessionId"`
	// Source: "current", "orphan" (an earlier transcript a reset left),
	// "archived" (an archive a 2026.9 store keeps), "gateway".
	Source string `json:"source"`
	Path   string `json:"path,omitempty"`
	// First is the sequence number of its first message in the export;
	// Messages how many it gave (set at the end, json only).
	First    int `json:"firstMessage,omitempty"`
	Messages int `json:"messages"`
}

// Line is one line of a transcript handed to a Writer: a message, or
// (jsonl only) another line as stored.
type Line struct {
	// Seq numbers the messages of the export from 1 (0 for a line
	// without a message).
	Seq int
	// Raw is the line as stored (without "\n"); Message its message
	// object, nil when it has none.
	Raw     []byte
	Message json.RawMessage
	// Unterminated: the file's last line, with no "\n" after it (jsonl
	// writes it so, byte for byte).
	Unterminated bool
}

// Writer writes one export: Begin, then Segment and Write in transcript
// order, then End.
type Writer interface {
	Begin(m *Meta) error
	Segment(s Segment) error
	Write(l Line) error
	End() error
}

// New is the Writer of format f onto w.
func New(f Format, w io.Writer) (Writer, error) {
	switch f {
	case HTML:
		return newHTML(w), nil
	case Markdown:
		return &mdWriter{w: w}, nil
	case JSON:
		return &jsonWriter{w: w}, nil
	case JSONL:
		return &jsonlWriter{w: w}, nil
	}
	return nil, apperr.Usagef("invalid --format %q: one of %s", f, strings.Join(Formats, ", "))
}

// Totals are what an export counts of its messages.
type Totals struct {
	Messages  int     `json:"messages"`
	User      int     `json:"user"`
	Assistant int     `json:"assistant"`
	Tools     int     `json:"toolResults"`
	Input     int64   `json:"inputTokens"`
	Output    int64   `json:"outputTokens"`
	Tokens    int64   `json:"totalTokens"`
	Cost      float64 `json:"cost"`
	First     int64   `json:"firstAt,omitempty"` // epoch ms
	Last      int64   `json:"lastAt,omitempty"`
}

func (t *Totals) add(h *head) {
	t.Messages++
	switch h.Role {
	case "user":
		t.User++
	case "assistant":
		t.Assistant++
	case "toolResult", "tool":
		t.Tools++
	}
	t.Input += h.Input
	t.Output += h.Output
	t.Tokens += h.tokens()
	t.Cost += h.Cost
	if ts := h.Time; ts > 0 {
		if t.First == 0 || ts < t.First {
			t.First = ts
		}
		t.Last = max(t.Last, ts)
	}
}

// TimeOf reads a timestamp value (epoch ms, or an RFC 3339 string).
func TimeOf(v json.RawMessage) int64 {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return 0
	}
	var f float64
	if json.Unmarshal(v, &f) == nil {
		return int64(f)
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UnixMilli()
		}
	}
	return 0
}

// MessageTime is a message's time in epoch ms (0 when it has none).
func MessageTime(raw json.RawMessage) int64 { return timeOf(gjson.GetBytes(raw, "timestamp")) }

// Filter leaves out what --no-tools and --no-thinking leave out of a
// message: a tool result whole (keep false), tool-call blocks, thinking
// blocks. A message left without content is dropped too (keep false). The
// message is returned as is when nothing is taken out of it.
func Filter(raw json.RawMessage, noTools, noThinking bool) (out json.RawMessage, keep bool) {
	if !noTools && !noThinking {
		return raw, true
	}
	o := jsonx.NewObject()
	if json.Unmarshal(raw, o) != nil {
		return raw, true
	}
	role, _ := o.String("role")
	if noTools && (role == "toolResult" || role == "tool") {
		return nil, false
	}
	var blocks []json.RawMessage
	if json.Unmarshal(o.Raw("content"), &blocks) != nil {
		return raw, true
	}
	kept := make([]json.RawMessage, 0, len(blocks))
	for _, b := range blocks {
		var h struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(b, &h)
		switch {
		case noTools && (h.Type == "toolCall" || h.Type == "tool_use" || h.Type == "toolUse"):
			continue
		case noThinking && (h.Type == "thinking" || h.Type == "redacted_thinking"):
			continue
		}
		kept = append(kept, b)
	}
	if len(kept) == len(blocks) {
		return raw, true
	}
	if len(kept) == 0 {
		return nil, false
	}
	c, _ := json.Marshal(kept)
	o.SetRaw("content", c)
	b, err := jsonx.Marshal(o)
	if err != nil {
		return raw, true
	}
	return b, true
}

// day is the UTC day of an epoch-ms time ("" when unknown).
func day(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02")
}

// Stamp is an epoch-ms time as people read it, UTC.
func Stamp(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05Z")
}

// humanBytes is a size for people.
func humanBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// facts are the header's lines: name and value, in order.
func (m *Meta) facts() [][2]string {
	var f [][2]string
	add := func(k, v string) {
		if v != "" {
			f = append(f, [2]string{k, v})
		}
	}
	add("Key", m.Key)
	add("Session", m.SessionID)
	add("Agent", m.Agent)
	add("Label", m.Label)
	add("Channel", m.Channel)
	add("Kind", m.Kind)
	add("Model", m.Model)
	add("Created", Stamp(m.CreatedAt))
	add("Updated", Stamp(m.UpdatedAt))
	if m.Tokens > 0 {
		add("Total tokens (entry)", fmt.Sprint(m.Tokens))
	}
	add("Read from", m.Where)
	r := m.Range
	if r == "" {
		r = "the whole conversation"
	}
	add("Range", r)
	if m.Lineage {
		add("Lineage", "earlier transcripts included")
	}
	if m.Orphan {
		add("Orphan", "no session entry points to this transcript")
	}
	if m.Redacted {
		add("Redacted", "secrets, tokens and keys were masked")
	}
	var left []string
	if m.NoTools {
		left = append(left, "tool calls and results")
	}
	if m.NoThinking {
		left = append(left, "thinking")
	}
	if len(left) > 0 {
		add("Left out", strings.Join(left, ", "))
	}
	add("Window", m.Window)
	return f
}

func (t *Totals) line() string {
	s := fmt.Sprintf("%d messages (%d user, %d assistant, %d tool results)", t.Messages, t.User, t.Assistant, t.Tools)
	if t.Tokens > 0 {
		s += fmt.Sprintf(" · %d tokens (%d in, %d out)", t.Tokens, t.Input, t.Output)
	}
	if t.Cost > 0 {
		s += fmt.Sprintf(" · cost %.4f", t.Cost)
	}
	if t.First > 0 {
		s += " · " + Stamp(t.First) + " – " + Stamp(t.Last)
	}
	return s
}

// ReplaceMessage is a transcript line with its message object replaced
// (what --no-tools or --no-thinking left out taken out, or masked); the
// line as it is when it is not an object.
func ReplaceMessage(line []byte, m json.RawMessage) []byte {
	o := jsonx.NewObject()
	if json.Unmarshal(line, o) != nil || !o.Has("message") {
		return line
	}
	o.SetRaw("message", m)
	b, err := jsonx.Marshal(o)
	if err != nil {
		return line
	}
	return b
}
