package engine

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/engine/enginetest"
	"github.com/openclaw/sessions/internal/persona"
)

// What the provider engine adds to a turn beside the HTTP call itself:
// BenchmarkProviderTurn is a whole Turn (persona from a workspace with 8
// files, context fitting, conversion, encoding, the HTTP round trip to a
// local fake model, decoding); BenchmarkProviderHTTPOnly posts the same
// request body to the same server. The difference is the engine's overhead
// (docs/PERFORMANCE.md).
//
//	go test -run '^$' -bench 'Provider(Turn|HTTPOnly)' -benchtime 200x ./internal/engine/

func benchSetup(b *testing.B, turns int) (*Provider, Request, *enginetest.Server) {
	b.Helper()
	srv := enginetest.NewOpenAI(b, enginetest.Options{Reply: "ok"})
	home := b.TempDir()
	ws := filepath.Join(home, ".openclaw", "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	for _, n := range []string{"AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "MEMORY.md"} {
		if err := os.WriteFile(filepath.Join(ws, n), []byte(strings.Repeat("line of "+n+"\n", 300)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cfg := loadConfig(b, `{
  "agents": {"list": [{"id": "main", "default": true}]},
  "models": {"providers": {"fake": {"baseUrl": `+jsonStr(srv.URL)+`, "apiKey": "k", "api": "openai-completions",
    "models": [{"id": "m1", "contextWindow": 128000, "maxTokens": 4096}]}}}
}`, nil)
	e := &Provider{Config: cfg, PersonaEnv: &persona.Env{Home: home, HostTZ: "UTC"}}
	req := baseRequest()
	req.History = synthHistory(turns, 300)
	return e, req, srv
}

// sizes: a short session (10 turns, 40 messages) and a long one (2,000
// turns, 8,000 messages: the request fills the 128k window, ≈ 460 KB).
var benchSizes = []struct {
	name  string
	turns int
}{{"short", 10}, {"window-full", 2000}}

func BenchmarkProviderTurn(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			e, req, _ := benchSetup(b, sz.turns)
			for b.Loop() {
				if _, err := e.Turn(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkProviderHTTPOnly(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			e, req, srv := benchSetup(b, sz.turns)
			if _, err := e.Turn(context.Background(), req); err != nil {
				b.Fatal(err)
			}
			body := srv.Last().Body
			client := &http.Client{Timeout: 10 * time.Second}
			for b.Loop() {
				resp, err := client.Post(srv.URL+"/chat/completions", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				var buf bytes.Buffer
				_, _ = buf.ReadFrom(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatal(resp.Status)
				}
			}
		})
	}
}
