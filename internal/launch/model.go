package launch

import (
	"fmt"
	"sort"
	"strings"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/engine"
)

// defaultProvider is OpenClaw's DEFAULT_PROVIDER, the provider of a bare
// model id when agents.defaults.model does not name one.
const defaultProvider = "anthropic"

// Model is a resolved, validated model for a sub-agent (spawn --model).
type Model struct {
	Ref      string // as given (trimmed)
	Provider string // the models.providers key, as configured
	ID       string // the model id
}

// Key is "provider/model".
func (m Model) Key() string { return m.Provider + "/" + m.ID }

// normalizeProviderID is OpenClaw's normalizeProviderId
// (dist/agents/model-selection.js).
func normalizeProviderID(p string) string {
	n := strings.ToLower(strings.TrimSpace(p))
	switch n {
	case "z.ai", "z-ai":
		return "zai"
	case "opencode-zen":
		return "opencode"
	case "qwen":
		return "qwen-portal"
	case "kimi-code":
		return "kimi-coding"
	}
	return n
}

// configuredDefault is agents.defaults.model as OpenClaw resolves it
// (resolveConfiguredModelRef): "" provider means none is configured.
func configuredDefault(cfg *config.Config) (provider, model string) {
	if cfg == nil || cfg.Defaults.Model == nil || strings.TrimSpace(cfg.Defaults.Model.Primary) == "" {
		return "", ""
	}
	p, m := cfg.ResolveModel(cfg.Defaults.Model.Primary)
	if m == "" {
		return "", ""
	}
	if p == "" {
		p = defaultProvider // OpenClaw: "specified without provider. Falling back to anthropic"
	}
	return normalizeProviderID(p), m
}

// parseRef is OpenClaw's alias lookup + parseModelRef: a bare id that is no
// alias takes the default provider; an empty provider or model part is
// malformed (ok false).
func parseRef(cfg *config.Config, ref string) (provider, model string, ok bool) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", "", false
	}
	p, m := cfg.ResolveModel(ref) // resolves aliases of agents.defaults.models
	if p == "" && !strings.Contains(ref, "/") && m != "" {
		if dp, _ := configuredDefault(cfg); dp != "" {
			p = dp
		} else {
			p = defaultProvider
		}
	}
	if p == "" || m == "" {
		return "", "", false
	}
	return normalizeProviderID(p), m, true
}

// CheckModel validates the model a sub-agent is spawned with (CONTRACT §4):
// malformed, a provider not configured in models.providers, a model
// missing from the provider's explicit models list, or a model outside the
// agents.defaults.models allowlist (when one is set) is refused with an
// error message in OpenClaw's words ("invalid model: …", "model not
// allowed: …"). OpenClaw 1.30 only warns and spawns without the model; we
// refuse before anything is written.
func CheckModel(cfg *config.Config, ref string) (Model, error) {
	ref = strings.TrimSpace(ref)
	p, m, ok := parseRef(cfg, ref)
	if !ok {
		return Model{}, fmt.Errorf("invalid model: %s", ref)
	}
	key, prov, found := engine.LookupProvider(cfg, p)
	if !found {
		return Model{}, fmt.Errorf("invalid model: %s (provider %q is not configured in models.providers)", ref, p)
	}
	if prov.Models != nil && prov.Model(m) == nil {
		ids := make([]string, 0, len(prov.Models))
		for _, d := range prov.Models {
			ids = append(ids, d.ID)
		}
		has := "none"
		if len(ids) > 0 {
			has = strings.Join(ids, ", ")
		}
		return Model{}, fmt.Errorf("invalid model: %s (models.providers.%s.models has no %q; it has: %s)", ref, key, m, has)
	}
	if len(cfg.Defaults.Models) > 0 {
		allowed := map[string]bool{}
		for k := range cfg.Defaults.Models {
			if ap, am, ok := parseAllowKey(cfg, k); ok {
				allowed[ap+"/"+am] = true
			}
		}
		if dp, dm := configuredDefault(cfg); dp != "" {
			allowed[dp+"/"+dm] = true
		}
		if !allowed[p+"/"+m] {
			return Model{}, fmt.Errorf("model not allowed: %s/%s (agents.defaults.models allows: %s)", p, m, strings.Join(sortedKeys(allowed), ", "))
		}
	}
	return Model{Ref: ref, Provider: key, ID: m}, nil
}

// parseAllowKey parses a key of agents.defaults.models (no alias lookup).
func parseAllowKey(cfg *config.Config, k string) (string, string, bool) {
	k = strings.TrimSpace(k)
	if k == "" {
		return "", "", false
	}
	p, m, found := strings.Cut(k, "/")
	if !found {
		dp, _ := configuredDefault(cfg)
		if dp == "" {
			dp = defaultProvider
		}
		return normalizeProviderID(dp), k, true
	}
	p, m = strings.TrimSpace(p), strings.TrimSpace(m)
	if p == "" || m == "" {
		return "", "", false
	}
	return normalizeProviderID(p), m, true
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// RedundantOverride: OpenClaw clears the override when the model is
// agents.defaults.model. We do so only when the target agent has no model
// of its own (else 1.30 would run the agent's model, not the one asked for).
func RedundantOverride(cfg *config.Config, agent string, m *Model) bool {
	dp, dm := configuredDefault(cfg)
	if dp == "" || normalizeProviderID(m.Provider)+"/"+m.ID != dp+"/"+dm {
		return false
	}
	a := cfg.Agent(agent)
	return a == nil || a.Model == nil || strings.TrimSpace(a.Model.Primary) == ""
}
