package export

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// A message handed to a Writer was read from a line that is valid JSON
// (transcript.Classify, or a gateway's answer), so it is read here with
// gjson: one scan per field, no validation pass and no decoding of what is
// not shown — a transcript's big tool outputs are decoded once, when they
// are written. (encoding/json validates the whole input on every
// Unmarshal: three times per message in history's Markdown.)

// head is what the header of a message and the totals read.
type head struct {
	Role, Model, ToolName, Error string
	IsError                      bool
	Time                         int64
	Input, Output, Total         int64
	Cost                         float64
	content                      gjson.Result
}

func readHead(raw []byte) head {
	r := gjson.ParseBytes(raw)
	var h head
	r.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "role":
			h.Role = v.String()
		case "model":
			h.Model = v.String()
		case "toolName":
			h.ToolName = v.String()
		case "errorMessage":
			h.Error = v.String()
		case "isError":
			h.IsError = v.Bool()
		case "timestamp":
			h.Time = timeOf(v)
		case "content":
			h.content = v
		case "usage":
			h.Input, h.Output, h.Total = v.Get("input").Int(), v.Get("output").Int(), v.Get("totalTokens").Int()
			h.Cost = v.Get("cost.total").Float()
		}
		return true
	})
	return h
}

func timeOf(v gjson.Result) int64 {
	switch v.Type {
	case gjson.Number:
		if strings.ContainsAny(v.Raw, ".eE") {
			return 0 // not whole milliseconds: no time (as history reads it)
		}
		return v.Int()
	case gjson.String:
		if t, err := time.Parse(time.RFC3339Nano, v.Str); err == nil {
			return t.UnixMilli()
		}
	}
	return 0
}

func (h *head) tokens() int64 {
	if h.Total > 0 {
		return h.Total
	}
	return h.Input + h.Output
}

// mdMessage writes one message as history --format markdown writes it
// (internal/render's MarkdownMessages: the same heading, parts and fences).
func mdMessage(b *strings.Builder, n int, h *head) {
	b.WriteByte('\n')
	heading := fmt.Sprintf("## %d. %s", n, mdRole(h.Role))
	switch {
	case h.Role == "toolResult" && h.ToolName != "":
		heading += ": `" + h.ToolName + "`"
		if h.IsError {
			heading += " (error)"
		}
	case h.Model != "":
		heading += " (" + h.Model + ")"
	}
	if h.Time > 0 {
		heading += " · " + time.UnixMilli(h.Time).UTC().Format("2006-01-02 15:04:05Z")
	}
	b.WriteString(heading + "\n")
	var parts []string
	if h.Role == "toolResult" {
		parts = mdResult(h.content)
	} else {
		parts = mdContent(h.content)
	}
	if h.Error != "" {
		parts = append(parts, "> **Error:** "+strings.Join(strings.Fields(h.Error), " "))
	}
	if len(parts) == 0 {
		parts = []string{"*(empty)*"}
	}
	for _, p := range parts {
		b.WriteString("\n" + strings.TrimRight(p, "\n") + "\n")
	}
}

func mdRole(role string) string {
	switch role {
	case "user":
		return "User"
	case "assistant":
		return "Assistant"
	case "toolResult":
		return "Tool result"
	case "compactionSummary":
		return "Compaction summary"
	case "":
		return "Message"
	}
	return role
}

func mdContent(c gjson.Result) []string {
	switch {
	case c.Type == gjson.String:
		if strings.TrimSpace(c.Str) == "" {
			return nil
		}
		return []string{c.Str}
	case !c.IsArray():
		if !c.Exists() || c.Type == gjson.Null {
			return nil
		}
		return []string{mdFence("json", pretty([]byte(c.Raw)))}
	}
	var out []string
	objects := true
	c.ForEach(func(_, blk gjson.Result) bool {
		objects = blk.IsObject()
		return objects
	})
	if !objects { // not blocks: shown as the JSON it is
		return []string{mdFence("json", pretty([]byte(c.Raw)))}
	}
	c.ForEach(func(_, blk gjson.Result) bool {
		typ := blk.Get("type")
		switch typ.String() {
		case "text":
			if t := strField(blk, "text"); strings.TrimSpace(t) != "" {
				out = append(out, t)
			}
		case "thinking":
			t := strField(blk, "thinking")
			if strings.TrimSpace(t) != "" {
				out = append(out, "<details>\n<summary>Thinking</summary>\n\n"+strings.TrimRight(t, "\n")+"\n\n</details>")
			}
		case "toolCall":
			h := "**Tool call:** `" + strField(blk, "name") + "`"
			if id := strField(blk, "id"); id != "" {
				h += " (id `" + id + "`)"
			}
			args := blk.Get("arguments").Raw
			if args == "" {
				args = "{}"
			}
			out = append(out, h+"\n\n"+mdFence("json", pretty([]byte(args))))
		case "image":
			out = append(out, mdImage(blk))
		default:
			name := typ.String()
			if name == "" || typ.Type != gjson.String {
				name = "unknown"
			}
			out = append(out, "*["+name+" block]*\n\n"+mdFence("json", pretty(sortedJSON(blk))))
		}
		return true
	})
	return out
}

func mdResult(c gjson.Result) []string {
	var texts, notes []string
	objects := true
	c.ForEach(func(_, blk gjson.Result) bool {
		objects = blk.IsObject()
		return objects
	})
	switch {
	case c.Type == gjson.String:
		texts = append(texts, c.Str)
	case c.Type == gjson.Null || !c.Exists():
		texts = append(texts, "")
	case !c.IsArray() || !objects:
		return []string{mdFence("json", pretty([]byte(c.Raw)))}
	default:
		c.ForEach(func(_, blk gjson.Result) bool {
			switch blk.Get("type").String() {
			case "text":
				texts = append(texts, strField(blk, "text"))
			case "image":
				notes = append(notes, mdImage(blk))
			default:
				texts = append(texts, pretty(sortedJSON(blk)))
			}
			return true
		})
	}
	var out []string
	if t := strings.Join(texts, "\n"); strings.TrimSpace(t) != "" {
		tb := strings.TrimSpace(t)
		if (strings.HasPrefix(tb, "{") || strings.HasPrefix(tb, "[")) && json.Valid([]byte(tb)) {
			out = append(out, mdFence("json", pretty([]byte(tb))))
		} else {
			out = append(out, mdFence("text", t))
		}
	}
	return append(out, notes...)
}

func mdImage(blk gjson.Result) string {
	mime := strField(blk, "mimeType")
	var n int64 = -1
	if d := blk.Get("data"); d.Type == gjson.String && d.Str != "" {
		if dec, err := base64.StdEncoding.DecodeString(d.Str); err == nil {
			n = int64(len(dec))
		} else {
			n = int64(len(d.Str)) * 3 / 4
		}
	} else if v := blk.Get("bytes"); v.Type == gjson.Number {
		n = int64(v.Num)
	}
	if mime == "" {
		mime = "unknown type"
	}
	note := "*[image: " + mime
	if n >= 0 {
		note += fmt.Sprintf(", %d bytes", n)
	}
	if v := blk.Get("omitted"); v.Type == gjson.True {
		note += ", data omitted"
	}
	return note + "]*"
}

// strField is a block's string field ("" when absent or not a string).
func strField(blk gjson.Result, k string) string {
	v := blk.Get(k)
	if v.Type != gjson.String {
		return ""
	}
	return v.Str
}

// mdFence wraps body in a code fence longer than any backtick run inside it.
func mdFence(lang, body string) string {
	run, longest := 0, 0
	for i := 0; i < len(body); i++ {
		if body[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(body, "\n") + "\n" + f
}

// sortedJSON is a block as history's Markdown shows one of an unknown type:
// its keys sorted (encoding/json's map order), values compacted.
func sortedJSON(blk gjson.Result) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(blk.Raw), &m) != nil {
		return []byte(blk.Raw)
	}
	b, _ := json.Marshal(m)
	return b
}
