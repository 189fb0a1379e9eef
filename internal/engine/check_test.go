package engine

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckProvider: the pre-run check refuses exactly what a provider turn
// would refuse at its start (TestProviderConfigErrors), without a request.
func TestCheckProvider(t *testing.T) {
	doc := `{"models":{"providers":{
	  "sec": {"baseUrl":"http://127.0.0.1:1/v1","apiKey":"${MY_MISSING_KEY}","api":"openai-completions","models":[{"id":"m1"}]},
	  "ok": {"baseUrl":"http://127.0.0.1:1/v1","apiKey":"k","models":[{"id":"m1"}]},
	  "openai": {"models":[{"id":"gpt"}]}
	}}}`
	cfg := loadConfig(t, doc, nil)
	for _, c := range []struct{ provider, model, want string }{
		{"sec", "m1", "models.providers.sec.apiKey uses ${MY_MISSING_KEY}, which is not set"},
		{"nope", "m1", `unknown model provider "nope"`},
		{"ok", "m9", `unknown model "m9" for provider "ok"`},
		{"", "", "no model for this turn"},
		{"ok", "m1", ""},
		{"openai", "gpt", ""}, // built-in base URL; the key from the environment (here: none)
	} {
		err := CheckProvider(cfg, c.provider, c.model, func(string) string { return "" })
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s/%s: %v", c.provider, c.model, err)
		case c.want != "" && (err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s/%s: err %v, want %q", c.provider, c.model, err, c.want)
		}
	}
}
