package render

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// MarkdownHeader writes the heading of a Markdown export: a title and a
// short list of facts (each "Name: value" pair on one bullet).
func MarkdownHeader(w io.Writer, title string, facts [][2]string) error {
	var b strings.Builder
	b.WriteString("# " + title + "\n")
	if len(facts) > 0 {
		b.WriteByte('\n')
		for _, f := range facts {
			b.WriteString("- " + f[0] + ": " + f[1] + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MarkdownMessages writes one section per message, numbered from first:
// a "## N. Role (model) · time" heading, text as is, thinking folded in
// <details>, tool calls and tool results as fenced blocks (JSON when it
// parses, pretty-printed in its own key order), images noted.
func MarkdownMessages(w io.Writer, msgs []json.RawMessage, first int) error {
	return MarkdownMessagesMarked(w, msgs, first, 0)
}

// MarkdownMark ends the heading of the message history --around asked
// for, in Markdown output.
const MarkdownMark = " · **asked for (--around)**"

// MarkdownMessagesMarked is MarkdownMessages with section number mark
// (0: none) marked as the message asked for (history --around).
func MarkdownMessagesMarked(w io.Writer, msgs []json.RawMessage, first, mark int) error {
	var b strings.Builder
	n := first
	for _, raw := range msgs {
		var m message
		if err := json.Unmarshal(raw, &m); err != nil {
			continue
		}
		b.WriteByte('\n')
		h := mdHeading(n, m)
		if n == mark {
			h += MarkdownMark
		}
		b.WriteString(h + "\n")
		n++
		var parts []string
		if m.Role == "toolResult" {
			parts = mdToolResult(m.Content)
		} else {
			parts = mdContent(m.Content)
		}
		if m.Error != "" {
			parts = append(parts, "> **Error:** "+oneLine(m.Error))
		}
		if len(parts) == 0 {
			parts = []string{"*(empty)*"}
		}
		for _, p := range parts {
			b.WriteString("\n" + strings.TrimRight(p, "\n") + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdHeading(n int, m message) string {
	h := fmt.Sprintf("## %d. %s", n, roleTitle(m.Role))
	switch {
	case m.Role == "toolResult" && m.ToolName != "":
		h += ": `" + m.ToolName + "`"
		if m.IsError {
			h += " (error)"
		}
	case m.Model != "":
		h += " (" + m.Model + ")"
	}
	if ts, err := m.Timestamp.Int64(); err == nil && ts > 0 {
		h += " · " + time.UnixMilli(ts).UTC().Format("2006-01-02 15:04:05Z")
	}
	return h
}

func roleTitle(role string) string {
	switch role {
	case "user":
		return "User"
	case "assistant":
		return "Assistant"
	case "toolResult":
		return "Tool result"
	case "":
		return "Message"
	}
	return role
}

// mdContent renders a user or assistant content: a string, or blocks.
func mdContent(content json.RawMessage) []string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return nil
		}
		return []string{s}
	}
	var bs []map[string]json.RawMessage
	if json.Unmarshal(content, &bs) != nil {
		if len(bytes.TrimSpace(content)) == 0 || string(bytes.TrimSpace(content)) == "null" {
			return nil
		}
		return []string{fence("json", prettyJSON(content))}
	}
	var out []string
	for _, blk := range bs {
		str := func(k string) string { return strField(blk, k) }
		switch str("type") {
		case "text":
			if t := str("text"); strings.TrimSpace(t) != "" {
				out = append(out, t)
			}
		case "thinking":
			t := str("thinking")
			if strings.TrimSpace(t) == "" {
				continue
			}
			out = append(out, "<details>\n<summary>Thinking</summary>\n\n"+strings.TrimRight(t, "\n")+"\n\n</details>")
		case "toolCall":
			h := "**Tool call:** `" + str("name") + "`"
			if id := str("id"); id != "" {
				h += " (id `" + id + "`)"
			}
			args := blk["arguments"]
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			out = append(out, h+"\n\n"+fence("json", prettyJSON(args)))
		case "image":
			out = append(out, imageNote(blk))
		default:
			typ := str("type")
			if typ == "" {
				typ = "unknown"
			}
			b, _ := json.Marshal(blk)
			out = append(out, "*["+typ+" block]*\n\n"+fence("json", prettyJSON(b)))
		}
	}
	return out
}

// mdToolResult renders a tool result's content: its text blocks joined, as
// a fenced block (json when the text is JSON), images noted.
func mdToolResult(content json.RawMessage) []string {
	var texts []string
	var notes []string
	var s string
	if json.Unmarshal(content, &s) == nil {
		texts = append(texts, s)
	} else {
		var bs []map[string]json.RawMessage
		if json.Unmarshal(content, &bs) != nil {
			return []string{fence("json", prettyJSON(content))}
		}
		for _, blk := range bs {
			var typ, text string
			_ = json.Unmarshal(blk["type"], &typ)
			switch typ {
			case "text":
				_ = json.Unmarshal(blk["text"], &text)
				texts = append(texts, text)
			case "image":
				notes = append(notes, imageNote(blk))
			default:
				b, _ := json.Marshal(blk)
				texts = append(texts, string(prettyJSON(b)))
			}
		}
	}
	var out []string
	if t := strings.Join(texts, "\n"); strings.TrimSpace(t) != "" {
		tb := bytes.TrimSpace([]byte(t))
		if (bytes.HasPrefix(tb, []byte("{")) || bytes.HasPrefix(tb, []byte("["))) && json.Valid(tb) {
			out = append(out, fence("json", prettyJSON(tb)))
		} else {
			out = append(out, fence("text", []byte(t)))
		}
	}
	return append(out, notes...)
}

// imageNote describes an image block: its MIME type and size (the
// sanitised "bytes", else the decoded size of its data).
func imageNote(blk map[string]json.RawMessage) string {
	var mime, data string
	var n int64 = -1
	_ = json.Unmarshal(blk["mimeType"], &mime)
	if json.Unmarshal(blk["data"], &data) == nil && data != "" {
		if dec, err := base64.StdEncoding.DecodeString(data); err == nil {
			n = int64(len(dec))
		} else {
			n = int64(len(data)) * 3 / 4
		}
	} else {
		var f float64
		if json.Unmarshal(blk["bytes"], &f) == nil {
			n = int64(f)
		}
	}
	if mime == "" {
		mime = "unknown type"
	}
	note := "*[image: " + mime
	if n >= 0 {
		note += fmt.Sprintf(", %d bytes", n)
	}
	var omitted bool
	if json.Unmarshal(blk["omitted"], &omitted) == nil && omitted {
		note += ", data omitted"
	}
	return note + "]*"
}

// prettyJSON indents JSON with two spaces, keeping its key order; input
// that is not valid JSON is returned as is.
func prettyJSON(raw []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, bytes.TrimSpace(raw), "", "  "); err != nil {
		return raw
	}
	return b.Bytes()
}

// fence wraps body in a code fence longer than any backtick run inside it.
func fence(lang string, body []byte) string {
	run, longest := 0, 0
	for _, c := range body {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(string(body), "\n") + "\n" + f
}

// strField is a block's string field ("" when absent or not a string).
func strField(blk map[string]json.RawMessage, k string) string {
	var v string
	_ = json.Unmarshal(blk[k], &v)
	return v
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
