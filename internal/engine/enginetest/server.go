package enginetest

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
)

// Server is a fake provider listening on 127.0.0.1.
type Server struct {
	*Fake
	// URL is the provider's baseUrl as openclaw.json would give it:
	// http://127.0.0.1:P/v1 for OpenAI, http://127.0.0.1:P for Anthropic.
	URL  string
	HTTP *httptest.Server
}

// NewOpenAI starts an OpenAI-compatible fake, closed when the test ends.
func NewOpenAI(t testing.TB, opts Options) *Server { return start(t, OpenAI, opts) }

// NewAnthropic starts an Anthropic Messages fake, closed when the test ends.
func NewAnthropic(t testing.TB, opts Options) *Server { return start(t, Anthropic, opts) }

func start(t testing.TB, api string, opts Options) *Server {
	t.Helper()
	f := NewFake(api, opts)
	hs := httptest.NewServer(f) // binds 127.0.0.1
	t.Cleanup(func() {
		f.Close()
		hs.Close()
	})
	u := hs.URL
	if api == OpenAI {
		u += "/v1"
	}
	return &Server{Fake: f, URL: u, HTTP: hs}
}

// APIName is the models.providers.<p>.api value for this fake.
func (s *Server) APIName() string {
	if s.API() == Anthropic {
		return "anthropic-messages"
	}
	return "openai-completions"
}

// ProviderJSON returns a models.providers.<p> entry for this fake, e.g. to
// put in a test's openclaw.json:
//
//	{"baseUrl":…,"apiKey":apiKey,"api":…,"models":[{"id":m,…}]}
func (s *Server) ProviderJSON(apiKey string, models ...string) string {
	list := make([]any, 0, len(models))
	for _, m := range models {
		list = append(list, map[string]any{
			"id": m, "name": m, "reasoning": false, "input": []string{"text"},
			"cost":          map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
			"contextWindow": 128000, "maxTokens": 4096,
		})
	}
	b, _ := json.Marshal(map[string]any{"baseUrl": s.URL, "apiKey": apiKey, "api": s.APIName(), "models": list})
	return string(b)
}
