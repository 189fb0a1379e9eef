// Package render turns transcript messages into text for people.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Text returns the text of a message content (a string, or the text blocks
// of an array joined by newlines).
func Text(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var blocks []map[string]any
	if json.Unmarshal(content, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b["type"] == "text" {
			if t, ok := b["text"].(string); ok {
				parts = append(parts, t)
			}
		}
	}
	return strings.Join(parts, "\n")
}

type message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	Timestamp  json.Number     `json:"timestamp"`
	ToolName   string          `json:"toolName"`
	IsError    bool            `json:"isError"`
	StopReason string          `json:"stopReason"`
	Error      string          `json:"errorMessage"`
}

// Style colours parts of the text output; nil functions leave text as is.
type Style struct {
	Role func(string) string // the role word of a header
	Dim  func(string) string // model, tool name and time
	// Mark, when set, says which message of a call's msgs (by index) to
	// mark as the one asked for (history --around): its header line ends
	// with MarkText.
	Mark func(i int) bool
}

// MarkText ends the header line of the message history --around asked
// for, in text output.
const MarkText = "  <== --around"

func (st Style) role(s string) string {
	if st.Role == nil {
		return s
	}
	return st.Role(s)
}

func (st Style) dim(s string) string {
	if st.Dim == nil || s == "" {
		return s
	}
	return st.Dim(s)
}

// Messages writes messages as readable text: a header line per message
// (role, model or tool, time) and its content indented, a blank line
// between messages.
func Messages(w io.Writer, msgs []json.RawMessage) error {
	return MessagesStyled(w, msgs, Style{}, false)
}

// MessagesStyled is Messages with colours; after tells that messages were
// already printed before these (a blank line goes first).
func MessagesStyled(w io.Writer, msgs []json.RawMessage, st Style, after bool) error {
	var b strings.Builder
	for i, raw := range msgs {
		var m message
		if err := json.Unmarshal(raw, &m); err != nil {
			continue
		}
		if after {
			b.WriteByte('\n')
		}
		after = true
		var extra string
		switch {
		case m.Role == "toolResult" && m.ToolName != "":
			extra = " (" + m.ToolName + ")"
			if m.IsError {
				extra += " error"
			}
		case m.Model != "":
			extra = " (" + m.Model + ")"
		}
		hdr := st.role(m.Role) + st.dim(extra)
		if ts, err := m.Timestamp.Int64(); err == nil && ts > 0 {
			hdr += "  " + st.dim(time.UnixMilli(ts).UTC().Format("2006-01-02 15:04:05Z"))
		}
		if st.Mark != nil && st.Mark(i) {
			hdr += st.role(MarkText)
		}
		b.WriteString(hdr + "\n")
		for _, line := range blocks(m.Content) {
			b.WriteString("  " + line + "\n")
		}
		if m.Error != "" {
			b.WriteString("  [error] " + m.Error + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// blocks renders content blocks as lines.
func blocks(content json.RawMessage) []string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return strings.Split(s, "\n")
	}
	var bs []map[string]any
	if json.Unmarshal(content, &bs) != nil {
		return nil
	}
	var out []string
	for _, b := range bs {
		switch b["type"] {
		case "text":
			t, _ := b["text"].(string)
			out = append(out, strings.Split(t, "\n")...)
		case "thinking":
			t, _ := b["thinking"].(string)
			out = append(out, "[thinking] "+firstLine(t))
		case "toolCall":
			name, _ := b["name"].(string)
			args, _ := json.Marshal(b["arguments"])
			out = append(out, fmt.Sprintf("[tool call] %s %s", name, args))
		case "image":
			mt, _ := b["mimeType"].(string)
			out = append(out, "[image "+mt+"]")
		default:
			out = append(out, fmt.Sprintf("[%v]", b["type"]))
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
