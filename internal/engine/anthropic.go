package engine

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Anthropic Messages request (api "anthropic-messages").

type anBlock struct {
	Type string `json:"type"`
	// text
	Text *string `json:"text,omitempty"`
	// image
	Source *anSource `json:"source,omitempty"`
	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// tool_result
	ToolUseID string    `json:"tool_use_id,omitempty"`
	Content   []anBlock `json:"content,omitempty"`
	IsError   bool      `json:"is_error,omitempty"`
}

type anSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type anMessage struct {
	Role    string    `json:"role"`
	Content []anBlock `json:"content"`
}

type anTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type anThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

type anRequest struct {
	Model      string         `json:"model"`
	MaxTokens  int            `json:"max_tokens"`
	System     string         `json:"system,omitempty"`
	Messages   []anMessage    `json:"messages"`
	Tools      []anTool       `json:"tools,omitempty"`
	ToolChoice map[string]any `json:"tool_choice,omitempty"`
	Thinking   *anThinking    `json:"thinking,omitempty"`
}

// anthropicFirstUser opens a conversation whose history starts with an
// assistant message (the Messages API wants a user message first).
const anthropicFirstUser = "(conversation history follows)"

// anthropicEmptyUser replaces a blank new message (blank text blocks are
// rejected).
const anthropicEmptyUser = "(empty message)"

func strp(s string) *string { return &s }

func anthropicRequest(t *target, system string, req Request) anRequest {
	conv := buildConversation(req.History, req.Message, convOptions{Images: t.Images, IDMaxLen: 64})
	var msgs []anMessage
	var toolNames []string
	seenTool := map[string]bool{}
	for i, m := range conv {
		last := i == len(conv)-1
		var blocks []anBlock
		for _, b := range m.Blocks {
			switch b.Kind {
			case bText:
				if strings.TrimSpace(b.Text) != "" {
					blocks = append(blocks, anBlock{Type: "text", Text: strp(b.Text)})
				} else if last && m.Role == "user" && len(m.Blocks) == 1 {
					blocks = append(blocks, anBlock{Type: "text", Text: strp(anthropicEmptyUser)})
				}
			case bImage:
				blocks = append(blocks, anBlock{Type: "image", Source: &anSource{Type: "base64", MediaType: b.MimeType, Data: b.Data}})
			case bToolCall:
				blocks = append(blocks, anBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: b.Args})
				if !seenTool[b.Name] {
					seenTool[b.Name] = true
					toolNames = append(toolNames, b.Name)
				}
			case bToolResult:
				rb := anBlock{Type: "tool_result", ToolUseID: b.ID, IsError: b.IsError}
				for _, c := range b.Content {
					switch c.Kind {
					case bText:
						if strings.TrimSpace(c.Text) != "" {
							rb.Content = append(rb.Content, anBlock{Type: "text", Text: strp(c.Text)})
						}
					case bImage:
						rb.Content = append(rb.Content, anBlock{Type: "image", Source: &anSource{Type: "base64", MediaType: c.MimeType, Data: c.Data}})
					}
				}
				blocks = append(blocks, rb)
			}
		}
		if len(blocks) == 0 {
			continue
		}
		// consecutive messages of one role are merged (tool results stay
		// first: they only ever open a user message)
		if n := len(msgs); n > 0 && msgs[n-1].Role == m.Role {
			msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
			continue
		}
		msgs = append(msgs, anMessage{Role: m.Role, Content: blocks})
	}
	if len(msgs) > 0 && msgs[0].Role != "user" {
		msgs = append([]anMessage{{Role: "user", Content: []anBlock{{Type: "text", Text: strp(anthropicFirstUser)}}}}, msgs...)
	}
	r := anRequest{Model: t.Model, MaxTokens: t.MaxToken, System: system, Messages: msgs}
	if len(toolNames) > 0 {
		for _, n := range toolNames {
			r.Tools = append(r.Tools, anTool{Name: n, Description: historyToolDescription, InputSchema: anyObjectSchema})
		}
		r.ToolChoice = map[string]any{"type": "none"}
	}
	if budget := anthropicBudget(req.Thinking); t.Def.Reasoning && budget > 0 {
		if r.MaxTokens <= budget {
			budget = r.MaxTokens * 3 / 4
		}
		if budget >= 1024 {
			r.Thinking = &anThinking{Type: "enabled", BudgetTokens: budget}
		}
	}
	return r
}

// anthropicBudget is pi's default thinking budget per level (0 = off).
func anthropicBudget(level string) int {
	switch strings.ToLower(strings.TrimSpace(level)) {
	case "minimal":
		return 1024
	case "low":
		return 2048
	case "medium":
		return 8192
	case "high", "xhigh":
		return 16384
	}
	return 0
}

// Anthropic Messages response.

type anResponse struct {
	Type    string `json:"type"`
	Content *[]struct {
		Type      string `json:"type"`
		Text      string `json:"text"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
		Name      string `json:"name"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
	Usage      *struct {
		InputTokens              int `json:"input_tokens"`
		OutputTokens             int `json:"output_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

func parseAnthropic(t *target, body []byte) (*apiResponse, error) {
	var r anResponse
	if err := decodeBody(t, body, &r); err != nil {
		return nil, err
	}
	if r.Content == nil {
		return nil, fail(ErrResponse, fmt.Sprintf("provider %s: response has no content", t.Name))
	}
	out := &apiResponse{}
	var texts, thinking []string
	for _, b := range *r.Content {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "thinking":
			thinking = append(thinking, b.Thinking)
			if out.ThinkingSig == "" {
				out.ThinkingSig = b.Signature
			}
		case "tool_use":
			out.ToolCalls = append(out.ToolCalls, b.Name)
		}
	}
	out.Text = strings.Join(texts, "")
	out.Thinking = strings.Join(thinking, "\n\n")
	if len(thinking) > 1 {
		out.ThinkingSig = "" // one signature cannot cover joined blocks
	}
	switch r.StopReason {
	case "max_tokens":
		out.StopReason = "length"
	case "refusal":
		out.StopReason, out.ErrorMessage = "error", "the provider refused to reply (refusal)"
	default: // end_turn, stop_sequence, pause_turn, tool_use (tools not recorded)
		out.StopReason = "stop"
	}
	if u := r.Usage; u != nil {
		out.Usage = Usage{
			Input:      u.InputTokens,
			Output:     u.OutputTokens,
			CacheRead:  u.CacheReadInputTokens,
			CacheWrite: u.CacheCreationInputTokens,
		}
		out.Usage.TotalTokens = u.InputTokens + u.OutputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
	}
	return out, nil
}
