package engine

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/openclaw/sessions/internal/config"
)

// Context fitting: a long session's leaf path is larger than any model's
// context window, so the provider engine sends only the newest turns that
// fit. Compaction entries are already honoured by transcript.LeafPath (the
// last compaction's summary stands for what it summarises, as OpenClaw
// replays it); FitHistory then drops whole turns from the oldest end.

// DefaultContextWindow is OpenClaw's DEFAULT_CONTEXT_TOKENS, used when the
// model has no contextWindow.
const DefaultContextWindow = 200_000

// fitHeadroom is the share of the window the estimate may fill: tokens are
// estimated at 4 characters each (pi's rule), which under-counts some text,
// so 10 % stays free.
const fitHeadroom = 0.9

// imageTokens is pi's estimate for one image block.
const imageTokens = 1200

// ContextWindow is the window a turn must fit: the model's contextWindow
// (default 200000), lowered to agents.defaults.contextTokens when that is
// set and smaller.
func ContextWindow(cfg *config.Config, def *config.ModelDef) int {
	w := DefaultContextWindow
	if def != nil && def.ContextWindow > 0 {
		w = int(def.ContextWindow)
	}
	if cfg != nil && cfg.Defaults.ContextTokens != nil && *cfg.Defaults.ContextTokens > 0 && int(*cfg.Defaults.ContextTokens) < w {
		w = int(*cfg.Defaults.ContextTokens)
	}
	return w
}

// HistoryBudget is what the history may take of window once the reply's
// maxTokens, the system prompt and the new message are counted.
func HistoryBudget(window, maxTokens int, system, message string) int {
	b := int(float64(window-maxTokens)*fitHeadroom) - textTokens(system) - textTokens(message)
	return max(b, 0)
}

func textTokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// EstimateTokens estimates one pi-format message, on the safe side: its
// stored JSON (with usage, ids and timestamps, which the request does not
// carry) divided by 4 — except for messages with images, whose base64 data
// is counted as pi counts an image (1200 tokens) and the rest by characters.
func EstimateTokens(raw json.RawMessage) int {
	if !bytes.Contains(raw, []byte(`"image"`)) {
		return (len(raw) + 3) / 4
	}
	var m struct {
		Content []struct {
			Type string `json:"type"`
			Data string `json:"data"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return (len(raw) + 3) / 4
	}
	n := len(raw)
	images := 0
	for _, b := range m.Content {
		if b.Type == "image" {
			n -= len(b.Data)
			images++
		}
	}
	return (max(n, 0)+3)/4 + images*imageTokens
}

// FitHistory keeps the newest turns of history whose estimated tokens fit
// budget. A turn starts at a user message (or a compaction/branch summary)
// and runs to the next one, so an assistant's tool calls are never separated
// from their results. It returns the kept suffix and how many messages were
// dropped; when even the newest turn does not fit, nothing is kept.
func FitHistory(history []json.RawMessage, budget int) ([]json.RawMessage, int) {
	if len(history) == 0 {
		return history, 0
	}
	total := 0
	cut := len(history) // history[cut:] is kept
	turn := 0           // tokens of the turn being gathered, newest first
	for i := len(history) - 1; i >= 0; i-- {
		turn += EstimateTokens(history[i])
		if !startsTurn(history[i]) && i > 0 {
			continue
		}
		if total+turn > budget {
			break
		}
		total += turn
		turn = 0
		cut = i
	}
	return history[cut:], cut
}

// startsTurn: a user message, or a summary OpenClaw replays as one. pi
// writes "role" first, so a look at the message's start avoids decoding a
// tool result of megabytes.
func startsTurn(raw json.RawMessage) bool {
	role := ""
	head := raw[:min(len(raw), 64)]
	if i := bytes.Index(head, []byte(`"role":"`)); i >= 0 {
		rest := head[i+8:]
		if j := bytes.IndexByte(rest, '"'); j >= 0 {
			role = string(rest[:j])
		}
	}
	if role == "" {
		var m struct {
			Role string `json:"role"`
		}
		_ = json.Unmarshal(raw, &m)
		role = m.Role
	}
	switch role {
	case "user", "compactionSummary", "branchSummary":
		return true
	}
	return false
}
