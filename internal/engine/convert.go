package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/openclaw/sessions/internal/lazyre"
)

// This file turns pi-format history (format §4.3) into a provider-neutral
// conversation that is valid for every provider:
//
//   - roles are only "user" and "assistant";
//   - an assistant message may carry tool calls only when every one of them
//     is answered, and then the very next message is a user message whose
//     first blocks are exactly those results (Anthropic's rule, stricter than
//     OpenAI's);
//   - everything that cannot be sent natively (a tool call without a result,
//     a result without its call, an invalid tool name, an image the model
//     cannot take) becomes a short text note instead;
//   - thinking blocks are dropped; assistant messages that ended in "error"
//     or "aborted" are skipped (pi does the same: they are incomplete turns);
//   - pi's extension roles are converted like pi's convertToLlm: custom →
//     user, bashExecution → user text, branchSummary/compactionSummary →
//     user text with pi's prefixes; unknown roles are skipped.

const (
	bText       = "text"
	bImage      = "image"
	bToolCall   = "toolCall"
	bToolResult = "toolResult"
)

type cblock struct {
	Kind     string
	Text     string          // text
	MimeType string          // image
	Data     string          // image, base64
	ID, Name string          // toolCall, toolResult
	Args     json.RawMessage // toolCall: a JSON object
	Content  []cblock        // toolResult: text and image blocks
	IsError  bool            // toolResult
}

type cmsg struct {
	Role   string // "user" | "assistant"
	Blocks []cblock
}

// convOptions are the target provider's limits.
type convOptions struct {
	Images   bool // the model takes images
	IDMaxLen int  // tool call id length limit
}

// piMessage is the union of the pi message fields we read.
type piMessage struct {
	Role               string          `json:"role"`
	Content            json.RawMessage `json:"content"`
	StopReason         string          `json:"stopReason"`
	ToolCallID         string          `json:"toolCallId"`
	ToolName           string          `json:"toolName"`
	IsError            bool            `json:"isError"`
	Command            string          `json:"command"`
	Output             string          `json:"output"`
	ExitCode           *float64        `json:"exitCode"`
	Cancelled          bool            `json:"cancelled"`
	Truncated          bool            `json:"truncated"`
	FullOutputPath     string          `json:"fullOutputPath"`
	ExcludeFromContext bool            `json:"excludeFromContext"`
	Summary            string          `json:"summary"`
}

type piBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	Data      string          `json:"data"`
	MimeType  string          `json:"mimeType"`
	Bytes     *float64        `json:"bytes"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// pi-coding-agent/dist/core/messages.js
const (
	compactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	compactionSummarySuffix = "\n</summary>"
	branchSummaryPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	branchSummarySuffix     = "</summary>"
)

// llmItem is a history message after pi's convertToLlm.
type llmItem struct {
	Role       string // user | assistant | toolResult
	Blocks     []cblock
	ToolCallID string
	ToolName   string
	IsError    bool
}

func textOf(s string) []cblock { return []cblock{{Kind: bText, Text: s}} }

// parseContent reads a content value: a string or an array of text/image
// (and, for assistants, toolCall) blocks.
func parseContent(raw json.RawMessage, assistant bool) []cblock {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == 'n' {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return textOf(s)
		}
		return nil
	}
	// one pass over the array when every block decodes (the usual case);
	// else block by block, skipping the ones that do not
	blocks, ok := decodeBlocks(raw)
	if !ok {
		return nil
	}
	var out []cblock
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text != nil {
				out = append(out, cblock{Kind: bText, Text: *b.Text})
			}
		case "image":
			if assistant {
				continue
			}
			ib := cblock{Kind: bImage, MimeType: b.MimeType, Data: b.Data}
			if ib.Data == "" { // sanitised ("omitted": true) or broken
				n := 0
				if b.Bytes != nil {
					n = int(*b.Bytes)
				}
				ib = cblock{Kind: bText, Text: imageNote(b.MimeType, n, "omitted from the transcript")}
			}
			out = append(out, ib)
		case "toolCall":
			if assistant {
				out = append(out, cblock{Kind: bToolCall, ID: b.ID, Name: b.Name, Args: normArgs(b.Arguments)})
			}
		}
		// thinking and unknown block types are dropped
	}
	return out
}

// decodeBlocks reads a content array; a block that is not a valid object
// of block fields is left out (false: raw is not an array).
func decodeBlocks(raw json.RawMessage) ([]piBlock, bool) {
	var all []piBlock
	if json.Unmarshal(raw, &all) == nil {
		return all, true
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return nil, false
	}
	out := make([]piBlock, 0, len(arr))
	for _, el := range arr {
		var b piBlock
		if json.Unmarshal(el, &b) == nil {
			out = append(out, b)
		}
	}
	return out, true
}

// normArgs makes tool-call arguments a JSON object.
func normArgs(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	if raw[0] == '{' && json.Valid(raw) {
		return raw
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			st := strings.TrimSpace(s)
			if strings.HasPrefix(st, "{") && json.Valid([]byte(st)) {
				return json.RawMessage(st)
			}
		}
	}
	if !json.Valid(raw) {
		raw, _ = json.Marshal(string(raw))
	}
	return json.RawMessage(`{"value":` + string(raw) + `}`)
}

func imageNote(mime string, n int, why string) string {
	if mime == "" {
		mime = "image"
	}
	if n > 0 {
		return fmt.Sprintf("[image %s, %d bytes, %s]", mime, n, why)
	}
	return fmt.Sprintf("[image %s, %s]", mime, why)
}

// toLLM applies pi's convertToLlm and drops what pi never sends.
func toLLM(history []json.RawMessage) []llmItem {
	var items []llmItem
	for _, raw := range history {
		var m piMessage
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		switch m.Role {
		case "user", "custom":
			if bl := parseContent(m.Content, false); len(bl) > 0 {
				items = append(items, llmItem{Role: "user", Blocks: bl})
			}
		case "bashExecution":
			if !m.ExcludeFromContext {
				items = append(items, llmItem{Role: "user", Blocks: textOf(bashExecutionText(m))})
			}
		case "branchSummary":
			items = append(items, llmItem{Role: "user", Blocks: textOf(branchSummaryPrefix + m.Summary + branchSummarySuffix)})
		case "compactionSummary":
			items = append(items, llmItem{Role: "user", Blocks: textOf(compactionSummaryPrefix + m.Summary + compactionSummarySuffix)})
		case "assistant":
			if m.StopReason == "error" || m.StopReason == "aborted" {
				continue
			}
			if bl := parseContent(m.Content, true); len(bl) > 0 {
				items = append(items, llmItem{Role: "assistant", Blocks: bl})
			}
		case "toolResult":
			items = append(items, llmItem{
				Role:       "toolResult",
				Blocks:     parseContent(m.Content, false),
				ToolCallID: m.ToolCallID,
				ToolName:   m.ToolName,
				IsError:    m.IsError,
			})
		}
	}
	return items
}

// bashExecutionText is pi's bashExecutionToText.
func bashExecutionText(m piMessage) string {
	t := "Ran `" + m.Command + "`\n"
	if m.Output != "" {
		t += "```\n" + m.Output + "\n```"
	} else {
		t += "(no output)"
	}
	if m.Cancelled {
		t += "\n\n(command cancelled)"
	} else if m.ExitCode != nil && *m.ExitCode != 0 {
		t += "\n\nCommand exited with code " + strconv.FormatFloat(*m.ExitCode, 'f', -1, 64)
	}
	if m.Truncated && m.FullOutputPath != "" {
		t += "\n\n[Output truncated. Full output: " + m.FullOutputPath + "]"
	}
	return t
}

// toolNameRE is what both OpenAI and Anthropic accept as a function name.
var toolNameRE = lazyre.New(`^[a-zA-Z0-9_-]{1,64}$`)

// idMapper gives every tool call a provider-safe id, unique in the request.
type idMapper struct {
	max  int
	used map[string]bool
	n    int
}

func (m *idMapper) next(orig string) string {
	id := strings.Map(func(r rune) rune {
		if r < 128 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, orig)
	if i := strings.IndexByte(orig, '|'); i > 0 { // OpenAI Responses "call|item" ids
		id = id[:i]
	}
	if len(id) > m.max {
		id = id[:m.max]
	}
	if id == "" {
		m.n++
		id = "call_" + strconv.Itoa(m.n)
	}
	for base, k := id, 2; m.used[id]; k++ {
		suf := "_" + strconv.Itoa(k)
		if len(base)+len(suf) > m.max {
			base = base[:m.max-len(suf)]
		}
		id = base + suf
	}
	m.used[id] = true
	return id
}

// buildConversation converts history plus the new user message.
func buildConversation(history []json.RawMessage, message string, opt convOptions) []cmsg {
	if opt.IDMaxLen <= 0 {
		opt.IDMaxLen = 64
	}
	ids := &idMapper{max: opt.IDMaxLen, used: map[string]bool{}}
	items := toLLM(history)
	var out []cmsg
	for i := 0; i < len(items); i++ {
		it := items[i]
		switch it.Role {
		case "user":
			out = append(out, cmsg{Role: "user", Blocks: imagesFor(it.Blocks, opt)})
		case "toolResult": // a result with no assistant message before it
			out = append(out, cmsg{Role: "user", Blocks: []cblock{{Kind: bText, Text: orphanResultNote(it)}}})
		case "assistant":
			// the tool results that follow this message directly
			j := i + 1
			for j < len(items) && items[j].Role == "toolResult" {
				j++
			}
			results := items[i+1 : j]
			resultFor := map[string]int{}
			for k, r := range results {
				if _, dup := resultFor[r.ToolCallID]; !dup && r.ToolCallID != "" {
					resultFor[r.ToolCallID] = k
				}
			}
			usedResult := map[int]bool{}
			seenCall := map[string]bool{}
			var ab []cblock
			var rb []cblock
			for _, b := range it.Blocks {
				if b.Kind != bToolCall {
					ab = append(ab, b)
					continue
				}
				k, ok := resultFor[b.ID]
				if !ok || seenCall[b.ID] || !toolNameRE.MatchString(b.Name) {
					// a result it has is then sent as text, below
					ab = append(ab, cblock{Kind: bText, Text: unpairedCallNote(b, ok && !seenCall[b.ID])})
					seenCall[b.ID] = true
					continue
				}
				seenCall[b.ID] = true
				usedResult[k] = true
				id := ids.next(b.ID)
				ab = append(ab, cblock{Kind: bToolCall, ID: id, Name: b.Name, Args: b.Args})
				r := results[k]
				rb = append(rb, cblock{Kind: bToolResult, ID: id, Name: b.Name, Content: imagesFor(r.Blocks, opt), IsError: r.IsError})
			}
			out = append(out, cmsg{Role: "assistant", Blocks: ab})
			for k, r := range results {
				if !usedResult[k] {
					rb = append(rb, cblock{Kind: bText, Text: orphanResultNote(r)})
				}
			}
			if len(rb) > 0 {
				out = append(out, cmsg{Role: "user", Blocks: rb})
			}
			i = j - 1
		}
	}
	out = append(out, cmsg{Role: "user", Blocks: textOf(message)})
	return out
}

// imagesFor keeps images the model takes and notes the others as text.
func imagesFor(bl []cblock, opt convOptions) []cblock {
	if opt.Images {
		return bl
	}
	out := make([]cblock, 0, len(bl))
	for _, b := range bl {
		if b.Kind == bImage {
			b = cblock{Kind: bText, Text: imageNote(b.MimeType, b64Len(b.Data), "not sent: the model does not take images")}
		}
		out = append(out, b)
	}
	return out
}

func unpairedCallNote(b cblock, hasResult bool) string {
	why := "no result recorded"
	if hasResult {
		why = "result follows as text"
	}
	return fmt.Sprintf("[tool call %s %s — %s]", b.Name, compactJSON(b.Args), why)
}

func orphanResultNote(r llmItem) string {
	name := r.ToolName
	if name == "" {
		name = "unknown"
	}
	head := "[tool result of " + name
	if r.IsError {
		head += " (error)"
	}
	head += "]"
	var parts []string
	for _, b := range r.Blocks {
		switch b.Kind {
		case bText:
			parts = append(parts, b.Text)
		case bImage:
			parts = append(parts, imageNote(b.MimeType, b64Len(b.Data), "not sent"))
		}
	}
	if len(parts) == 0 {
		return head
	}
	return head + "\n" + strings.Join(parts, "\n")
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	s := b.String()
	if len(s) > 2000 {
		s = s[:2000] + "…"
	}
	return s
}

// joinText joins the text blocks of bl.
func joinText(bl []cblock, sep string) string {
	var parts []string
	for _, b := range bl {
		if b.Kind == bText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, sep)
}

// b64Len is the decoded size of base64 data.
func b64Len(s string) int {
	s = strings.TrimSpace(s)
	n := len(s) * 3 / 4
	for i := len(s) - 1; i >= 0 && i >= len(s)-2 && s[i] == '='; i-- {
		n--
	}
	return max(n, 0)
}
