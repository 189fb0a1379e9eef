package launch

import (
	"strings"
)

// NormalizeThinkLevel is OpenClaw's normalizeThinkLevel
// (dist/auto-reply/thinking.js): the canonical level of a user-given one,
// "" when it is not one.
func NormalizeThinkLevel(raw string) string {
	switch strings.ToLower(raw) {
	case "":
		return ""
	case "off":
		return "off"
	case "on", "enable", "enabled":
		return "low"
	case "min", "minimal":
		return "minimal"
	case "low", "thinkhard", "think-hard", "think_hard":
		return "low"
	case "mid", "med", "medium", "thinkharder", "think-harder", "harder":
		return "medium"
	case "high", "ultra", "ultrathink", "thinkhardest", "highest", "max":
		return "high"
	case "xhigh", "x-high", "x_high":
		return "xhigh"
	case "think":
		return "minimal"
	}
	return ""
}

// xhighModels are OpenClaw's XHIGH_MODEL_REFS.
var xhighModels = []string{"openai/gpt-5.2", "openai-codex/gpt-5.2-codex", "openai-codex/gpt-5.1-codex"}

func supportsXHigh(provider, model string) bool {
	m := strings.ToLower(strings.TrimSpace(model))
	if m == "" {
		return false
	}
	p := strings.ToLower(strings.TrimSpace(provider))
	for _, ref := range xhighModels {
		if p != "" {
			if ref == p+"/"+m {
				return true
			}
		} else if _, id, _ := strings.Cut(ref, "/"); id == m {
			return true
		}
	}
	return false
}

// ThinkingLevels is formatThinkingLevels(provider, model): "off, on" for
// the binary-thinking provider zai, else off, minimal, low, medium, high
// (and xhigh for the models that support it).
func ThinkingLevels(provider, model string) string {
	p := strings.ToLower(strings.TrimSpace(provider))
	if p == "z.ai" || p == "z-ai" || p == "zai" {
		return "off, on"
	}
	levels := []string{"off", "minimal", "low", "medium", "high"}
	if supportsXHigh(provider, model) {
		levels = append(levels, "xhigh")
	}
	return strings.Join(levels, ", ")
}

// splitModelRef is the spawn tool's splitModelRef: "provider/model" (JS
// split with a limit of 2: "a/b/c" gives a and b), else the whole
// reference as the model.
func splitModelRef(ref string) (provider, model string) {
	t := strings.TrimSpace(ref)
	if t == "" {
		return "", ""
	}
	parts := strings.SplitN(t, "/", 3)
	if len(parts) >= 2 && parts[1] != "" {
		return parts[0], parts[1]
	}
	return "", t
}

// InvalidThinkingMessage is the spawn tool's refusal of a thinking level,
// with the levels of the resolved model (or of none).
func InvalidThinkingMessage(raw, resolvedModel string) string {
	p, m := splitModelRef(resolvedModel)
	return `Invalid thinking level "` + raw + `". Use one of: ` + ThinkingLevels(p, m) + "."
}
