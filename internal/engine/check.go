package engine

import "github.com/openclaw/sessions/internal/config"

// CheckProvider reports, without any network access, whether the provider
// engine could start a turn with provider/model as cfg configures them: the
// provider and model are configured, the api is supported, there is a
// baseUrl, and no ${VAR} in its apiKey, baseUrl or headers is left unset. It
// is the check a provider turn starts with, so a send can refuse before it
// records a run (CONTRACT §4: everything that can be refused is refused
// before a run is accepted). getenv looks up OPENAI_API_KEY and
// ANTHROPIC_API_KEY for the built-in providers (nil: os.Getenv).
func CheckProvider(cfg *config.Config, provider, model string, getenv func(string) string) error {
	e := &Provider{Config: cfg, Getenv: getenv}
	_, err := e.resolve(Request{Provider: provider, Model: model})
	return err
}
