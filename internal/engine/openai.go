package engine

import (
	"encoding/json"
	"fmt"
	"strings"
)

// OpenAI chat-completions request (api "openai-completions").

type oaMessage struct {
	Role       string       `json:"role"`
	Content    any          `json:"content"` // string, []oaPart or nil
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

type oaPart struct {
	Type     string      `json:"type"`
	Text     string      `json:"text,omitempty"`
	ImageURL *oaImageURL `json:"image_url,omitempty"`
}

type oaImageURL struct {
	URL string `json:"url"`
}

type oaToolCall struct {
	ID       string     `json:"id"`
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type oaTool struct {
	Type     string        `json:"type"`
	Function oaToolFuncDef `json:"function"`
}

type oaToolFuncDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type oaRequest struct {
	Model           string      `json:"model"`
	Messages        []oaMessage `json:"messages"`
	Stream          bool        `json:"stream"`
	Tools           []oaTool    `json:"tools,omitempty"`
	ToolChoice      string      `json:"tool_choice,omitempty"`
	ReasoningEffort string      `json:"reasoning_effort,omitempty"`
}

// historyToolDescription describes the tool definitions synthesised for tool
// calls found in the history: providers require the tools of a conversation
// with tool calls to be declared, and tool_choice "none" keeps the model
// from calling them.
const historyToolDescription = "A tool used earlier in this conversation; it is not available in this turn."

var anyObjectSchema = json.RawMessage(`{"type":"object"}`)

// openAIRequest builds the chat-completions body.
func openAIRequest(t *target, system string, req Request) oaRequest {
	conv := buildConversation(req.History, req.Message, convOptions{Images: t.Images, IDMaxLen: 40})
	msgs := []oaMessage{{Role: "system", Content: system}}
	var toolNames []string
	seenTool := map[string]bool{}
	for _, m := range conv {
		if m.Role == "assistant" {
			am := oaMessage{Role: "assistant"}
			if txt := joinNonEmptyText(m.Blocks); txt != "" {
				am.Content = txt
			}
			for _, b := range m.Blocks {
				if b.Kind == bToolCall {
					am.ToolCalls = append(am.ToolCalls, oaToolCall{ID: b.ID, Type: "function", Function: oaFunction{Name: b.Name, Arguments: compactJSON(b.Args)}})
					if !seenTool[b.Name] {
						seenTool[b.Name] = true
						toolNames = append(toolNames, b.Name)
					}
				}
			}
			if am.Content == nil && len(am.ToolCalls) == 0 {
				continue // providers reject empty assistant messages
			}
			msgs = append(msgs, am)
			continue
		}
		// user: tool results first (as "tool" messages), then the rest
		var rest []cblock
		var resultImages []oaPart
		for _, b := range m.Blocks {
			if b.Kind != bToolResult {
				rest = append(rest, b)
				continue
			}
			txt := joinText(b.Content, "\n")
			hasImage := false
			for _, c := range b.Content {
				if c.Kind == bImage {
					hasImage = true
					resultImages = append(resultImages, imagePart(c))
				}
			}
			if txt == "" && hasImage {
				txt = "(see attached image)"
			}
			msgs = append(msgs, oaMessage{Role: "tool", Content: txt, ToolCallID: b.ID})
		}
		if len(resultImages) > 0 {
			parts := append([]oaPart{{Type: "text", Text: "Attached image(s) from tool result:"}}, resultImages...)
			msgs = append(msgs, oaMessage{Role: "user", Content: parts})
		}
		if len(rest) > 0 {
			msgs = append(msgs, oaMessage{Role: "user", Content: openAIUserContent(rest)})
		}
	}
	r := oaRequest{Model: t.Model, Messages: msgs, Stream: false}
	if len(toolNames) > 0 {
		for _, n := range toolNames {
			r.Tools = append(r.Tools, oaTool{Type: "function", Function: oaToolFuncDef{Name: n, Description: historyToolDescription, Parameters: anyObjectSchema}})
		}
		r.ToolChoice = "none"
	}
	if t.Def.Reasoning {
		r.ReasoningEffort = openAIEffort(req.Thinking)
	}
	return r
}

// openAIUserContent is a plain string for text-only content (what every
// OpenAI-compatible server takes), else an array of parts.
func openAIUserContent(bl []cblock) any {
	allText := true
	for _, b := range bl {
		if b.Kind != bText {
			allText = false
		}
	}
	if allText {
		return joinText(bl, "\n")
	}
	parts := make([]oaPart, 0, len(bl))
	for _, b := range bl {
		switch b.Kind {
		case bText:
			parts = append(parts, oaPart{Type: "text", Text: b.Text})
		case bImage:
			parts = append(parts, imagePart(b))
		}
	}
	return parts
}

func imagePart(b cblock) oaPart {
	return oaPart{Type: "image_url", ImageURL: &oaImageURL{URL: "data:" + b.MimeType + ";base64," + b.Data}}
}

// joinNonEmptyText joins the non-blank text blocks (pi drops blank ones).
func joinNonEmptyText(bl []cblock) string {
	var parts []string
	for _, b := range bl {
		if b.Kind == bText && strings.TrimSpace(b.Text) != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// openAIEffort maps a thinking level to reasoning_effort ("" = not sent).
func openAIEffort(level string) string {
	switch strings.ToLower(strings.TrimSpace(level)) {
	case "minimal":
		return "minimal"
	case "low":
		return "low"
	case "medium":
		return "medium"
	case "high", "xhigh":
		return "high"
	}
	return ""
}

// OpenAI chat-completions response.

type oaResponse struct {
	Choices *[]struct {
		Message *struct {
			Content          json.RawMessage `json:"content"`
			ReasoningContent string          `json:"reasoning_content"`
			Reasoning        string          `json:"reasoning"`
			Refusal          string          `json:"refusal"`
			ToolCalls        []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptCacheHit      int `json:"prompt_cache_hit_tokens"` // DeepSeek
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

func parseOpenAI(t *target, body []byte) (*apiResponse, error) {
	var r oaResponse
	if err := decodeBody(t, body, &r); err != nil {
		return nil, err
	}
	if r.Choices == nil || len(*r.Choices) == 0 {
		return nil, fail(ErrResponse, fmt.Sprintf("provider %s: response has no choices", t.Name))
	}
	ch := (*r.Choices)[0]
	if ch.Message == nil {
		return nil, fail(ErrResponse, fmt.Sprintf("provider %s: response has no message", t.Name))
	}
	out := &apiResponse{}
	text, ok := openAIText(ch.Message.Content)
	for _, tc := range ch.Message.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, tc.Function.Name)
	}
	if !ok && ch.Message.Refusal != "" {
		text, ok = ch.Message.Refusal, true
	}
	switch {
	case ch.Message.ReasoningContent != "":
		out.Thinking, out.ThinkingSig = ch.Message.ReasoningContent, "reasoning_content"
	case ch.Message.Reasoning != "":
		out.Thinking, out.ThinkingSig = ch.Message.Reasoning, "reasoning"
	}
	if !ok && len(out.ToolCalls) == 0 && out.Thinking == "" {
		return nil, fail(ErrResponse, fmt.Sprintf("provider %s: response has no content", t.Name))
	}
	out.Text = text
	finish := ""
	if ch.FinishReason != nil {
		finish = *ch.FinishReason
	}
	switch finish {
	case "length":
		out.StopReason = "length"
	case "tool_calls", "function_call":
		out.StopReason = "toolUse"
	case "content_filter":
		out.StopReason, out.ErrorMessage = "error", "the provider stopped the reply (content_filter)"
	default:
		out.StopReason = "stop"
	}
	if out.StopReason == "toolUse" {
		out.StopReason = "stop" // the tool calls are not recorded (no tools here)
	}
	if u := r.Usage; u != nil {
		cached := 0
		if u.PromptTokensDetails != nil {
			cached = u.PromptTokensDetails.CachedTokens
		}
		if cached == 0 {
			cached = u.PromptCacheHit
		}
		out.Usage.Input = max(u.PromptTokens-cached, 0)
		out.Usage.CacheRead = cached
		out.Usage.Output = u.CompletionTokens
		out.Usage.TotalTokens = out.Usage.Input + out.Usage.Output + out.Usage.CacheRead
		if out.Usage.TotalTokens == 0 {
			out.Usage.TotalTokens = u.TotalTokens
		}
	}
	return out, nil
}

// openAIText reads message.content: a string, an array of parts, or null
// (ok false when absent or null).
func openAIText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" || p.Type == "output_text" {
				b.WriteString(p.Text)
			}
		}
		return b.String(), true
	}
	return "", false
}
