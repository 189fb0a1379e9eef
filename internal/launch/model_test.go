package launch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/config"
)

// Goldens from OpenClaw 2026.1.30's dist/auto-reply/thinking.js under Node.
func TestThinkingMatches130(t *testing.T) {
	norm := map[string]string{"on": "low", "Think-Hard": "low", "ULTRATHINK": "high", "x_high": "xhigh", "think": "minimal", "mid": "medium", "bogus": "", "OFF": "off", "max": "high"}
	for in, want := range norm {
		if got := NormalizeThinkLevel(in); got != want {
			t.Errorf("NormalizeThinkLevel(%q) = %q, want %q", in, got, want)
		}
	}
	levels := []struct{ p, m, want string }{
		{"", "", "off, minimal, low, medium, high"},
		{"openai", "gpt-5.2", "off, minimal, low, medium, high, xhigh"},
		{"", "gpt-5.1-codex", "off, minimal, low, medium, high, xhigh"},
		{"z-ai", "glm", "off, on"},
		{"anthropic", "claude", "off, minimal, low, medium, high"},
		{"OpenAI", "GPT-5.2", "off, minimal, low, medium, high, xhigh"},
	}
	for _, c := range levels {
		if got := ThinkingLevels(c.p, c.m); got != c.want {
			t.Errorf("ThinkingLevels(%q, %q) = %q, want %q", c.p, c.m, got, c.want)
		}
	}
	if got, want := InvalidThinkingMessage("nope", "openai/gpt-5.2/extra"), `Invalid thinking level "nope". Use one of: off, minimal, low, medium, high, xhigh.`; got != want {
		t.Errorf("got %q", got)
	}
}

func loadCfg(t *testing.T, json5 string) *config.Config {
	t.Helper()
	p := filepath.Join(t.TempDir(), "openclaw.json")
	if err := writeFile(p, json5); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p, config.Env{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestCheckModel(t *testing.T) {
	cfg := loadCfg(t, `{
	  models: { providers: {
	    Mock: { api: "openai-completions", models: [ { id: "mock-1" }, { id: "mock-2" } ] },
	    open: { api: "openai-completions" },
	    zai: { api: "openai-completions", models: [ { id: "glm" } ] } } },
	  agents: { defaults: { model: "mock/mock-1", models: { "mock/mock-1": { alias: "one" }, "open/any": {}, "z.ai/glm": {} } } },
	}`)
	ok := map[string]string{
		"mock/mock-1": "Mock/mock-1", " one ": "Mock/mock-1", "mock-1": "Mock/mock-1", "open/any": "open/any", "Z.AI/glm": "zai/glm",
	}
	for ref, want := range ok {
		m, err := CheckModel(cfg, ref)
		if err != nil || m.Key() != want {
			t.Errorf("CheckModel(%q) = %v, %v; want %s", ref, m, err, want)
		}
	}
	bad := map[string]string{
		"mock/":       "invalid model: mock/",
		"/x":          "invalid model: /x",
		"nope/x":      `invalid model: nope/x (provider "nope" is not configured in models.providers)`,
		"mock/mock-3": `invalid model: mock/mock-3 (models.providers.Mock.models has no "mock-3"; it has: mock-1, mock-2)`,
		"mock/mock-2": "model not allowed: mock/mock-2 (agents.defaults.models allows: mock/mock-1, open/any, zai/glm)",
		"open/other":  "model not allowed: open/other",
	}
	for ref, want := range bad {
		_, err := CheckModel(cfg, ref)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("CheckModel(%q) = %v, want %q", ref, err, want)
		}
	}
	// no allowlist: any model of a configured provider without a models list
	cfg2 := loadCfg(t, `{ models: { providers: { open: { api: "openai-completions" } } } }`)
	if _, err := CheckModel(cfg2, "open/whatever"); err != nil {
		t.Error(err)
	}
	// a bare id without a configured default model is anthropic's (OpenClaw's DEFAULT_PROVIDER)
	if _, err := CheckModel(cfg2, "claude-x"); err == nil || !strings.Contains(err.Error(), `provider "anthropic"`) {
		t.Errorf("bare id: %v", err)
	}
}

func TestSplitModelRef(t *testing.T) {
	for in, want := range map[string][2]string{"a/b": {"a", "b"}, "a/b/c": {"a", "b"}, "a/": {"", "a/"}, "/b": {"", "b"}, "x": {"", "x"}, " ": {"", ""}} {
		p, m := splitModelRef(in)
		if p != want[0] || m != want[1] {
			t.Errorf("splitModelRef(%q) = %q, %q; want %v", in, p, m, want)
		}
	}
}

func writeFile(p, s string) error { return os.WriteFile(p, []byte(s), 0o600) }
