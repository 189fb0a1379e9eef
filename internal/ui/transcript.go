package ui

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// tmsg is one transcript message as the session view draws it.
type tmsg struct {
	id      string
	role    string
	model   string
	at      int64 // ms
	tool    string
	isError bool
	errText string
	blocks  []tblock
	notice  string // a line of ours (a reset, the transcript replaced), not a message
	hit     bool   // the message a search hit opened the view at
	sum     uint64 // its stored bytes hashed (SessionView.fresh): which message it is
}

// tblock is one content block.
type tblock struct {
	kind string // text | thinking | toolCall | image | other
	text string // text, thinking, a tool call's name, the image's type
	args string // a tool call's arguments (JSON)
}

// parseMessage reads a raw transcript message; ok is false for what is not
// one.
func parseMessage(raw json.RawMessage) (tmsg, bool) {
	var m struct {
		ID         string          `json:"id"`
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Model      string          `json:"model"`
		Timestamp  json.Number     `json:"timestamp"`
		ToolName   string          `json:"toolName"`
		IsError    bool            `json:"isError"`
		Error      string          `json:"errorMessage"`
		Meta       json.RawMessage `json:"__openclaw"`
		StopReason string          `json:"stopReason"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.Role == "" {
		return tmsg{}, false
	}
	t := tmsg{id: m.ID, role: m.Role, model: m.Model, tool: m.ToolName, isError: m.IsError, errText: m.Error}
	if ts, err := m.Timestamp.Int64(); err == nil {
		t.at = ts
	} else if f, err := m.Timestamp.Float64(); err == nil {
		t.at = int64(f)
	}
	if t.id == "" && len(m.Meta) > 0 {
		var meta struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(m.Meta, &meta)
		t.id = meta.ID
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		t.blocks = []tblock{{kind: "text", text: s}}
		return t, true
	}
	var bs []map[string]json.RawMessage
	_ = json.Unmarshal(m.Content, &bs)
	str := func(b map[string]json.RawMessage, k string) string {
		var v string
		_ = json.Unmarshal(b[k], &v)
		return v
	}
	for _, b := range bs {
		switch typ := str(b, "type"); typ {
		case "text":
			t.blocks = append(t.blocks, tblock{kind: "text", text: str(b, "text")})
		case "thinking":
			t.blocks = append(t.blocks, tblock{kind: "thinking", text: str(b, "thinking")})
		case "toolCall", "tool_use":
			args := b["arguments"]
			if len(args) == 0 {
				args = b["input"]
			}
			t.blocks = append(t.blocks, tblock{kind: "toolCall", text: str(b, "name"), args: string(compactJSON(args))})
		case "image":
			t.blocks = append(t.blocks, tblock{kind: "image", text: str(b, "mimeType")})
		default:
			t.blocks = append(t.blocks, tblock{kind: "other", text: typ})
		}
	}
	return t, true
}

func compactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func indentJSON(s string) []string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") != nil {
		return []string{s}
	}
	return strings.Split(b.String(), "\n")
}

// drawOpts are the session view's toggles.
type drawOpts struct {
	tools    bool // tool calls and results expanded
	thinking bool // thinking shown
}

// drawMessage appends m's lines (plain text, no styles: styles are put on
// when a line is drawn, by kind) at width w.
func drawMessage(out []tline, m *tmsg, w int, o drawOpts) []tline {
	if m.notice != "" {
		return append(out, tline{text: "── " + m.notice + " ──", kind: lineNotice})
	}
	body := max(10, w-4) // a margin, the indent, and a cell to spare
	if m.role == "toolResult" {
		name := m.tool
		if name == "" {
			name = "tool"
		}
		head := "tool result (" + name + ")"
		if m.isError {
			head += " error"
		}
		text := ""
		for _, b := range m.blocks {
			if b.kind == "text" {
				if text != "" {
					text += "\n"
				}
				text += b.text
			}
		}
		if !o.tools {
			return append(out, tline{text: "▸ " + head + ": " + flat(text), kind: lineTool, cut: true})
		}
		out = append(out, tline{text: "▾ " + head, kind: lineTool})
		for _, l := range wrapText(text, body) {
			out = append(out, tline{text: "  " + l, kind: lineToolBody})
		}
		return out
	}
	head := m.role
	extra := ""
	if m.model != "" {
		extra = " (" + m.model + ")"
	}
	if m.at > 0 {
		extra += "  " + time.UnixMilli(m.at).UTC().Format("2006-01-02 15:04:05Z")
	}
	out = append(out, tline{text: head, extra: extra, kind: lineHead, role: m.role})
	for _, b := range m.blocks {
		switch b.kind {
		case "text":
			for _, l := range wrapText(b.text, body) {
				out = append(out, tline{text: "  " + l, kind: lineText})
			}
		case "thinking":
			if !o.thinking {
				continue
			}
			for _, l := range wrapText(b.text, body-2) {
				out = append(out, tline{text: "  ∴ " + l, kind: lineThinking})
			}
		case "toolCall":
			if !o.tools {
				out = append(out, tline{text: "  ▸ tool call " + b.text + " " + b.args, kind: lineTool, cut: true})
				continue
			}
			out = append(out, tline{text: "  ▾ tool call " + b.text, kind: lineTool})
			for _, l := range indentJSON(b.args) {
				for _, wl := range wrapText(l, body-2) {
					out = append(out, tline{text: "    " + wl, kind: lineToolBody})
				}
			}
		case "image":
			out = append(out, tline{text: "  [image " + b.text + "]", kind: lineTool})
		default:
			out = append(out, tline{text: "  [" + b.text + "]", kind: lineTool})
		}
	}
	if m.errText != "" {
		out = append(out, tline{text: "  [error] " + flat(m.errText), kind: lineError, cut: true})
	}
	return out
}

// line kinds.
const (
	lineText = iota
	lineHead
	lineTool
	lineToolBody
	lineThinking
	lineError
	lineNotice
	lineBlank
)

// tline is one drawn line of the transcript.
type tline struct {
	text  string
	extra string // dim suffix of a head line
	kind  int
	role  string
	cut   bool // one line by design: cut at the width, not wrapped
	hit   bool // a line of the message a search hit opened the view at
}

// wrapText wraps s at w cells, keeping its own line breaks.
func wrapText(s string, w int) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\t", "    ")
	var out []string
	for _, para := range strings.Split(s, "\n") {
		if para == "" {
			out = append(out, "")
			continue
		}
		wrapped := ansi.Wrap(ansi.Strip(para), w, " ")
		out = append(out, strings.Split(wrapped, "\n")...)
	}
	for len(out) > 1 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
