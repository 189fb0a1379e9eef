package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/persona"
)

// loadConfig writes an openclaw.json and loads it with env as the only
// environment.
func loadConfig(t testing.TB, doc string, env map[string]string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "openclaw.json")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p, config.Env{Getenv: func(k string) string { return env[k] }, Home: dir, Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// providerConfig is a config with one provider.
func providerConfig(t *testing.T, name, api, baseURL, apiKey, extra string) *config.Config {
	t.Helper()
	doc := `{
  "agents": {"list": [{"id": "main", "name": "Main Agent", "default": true}]},
  "models": {"providers": {"` + name + `": {
    "baseUrl": ` + jsonStr(baseURL) + `, "apiKey": ` + jsonStr(apiKey) + `, "api": ` + jsonStr(api) + `,
    "headers": {"X-Extra": "extra-value"},
    "models": [
      {"id": "m1", "name": "M1", "input": ["text"], "maxTokens": 2048,
       "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}},
      {"id": "m2", "name": "M2", "input": ["text", "image"]},
      {"id": "r1", "name": "R1", "reasoning": true, "maxTokens": 32000}
    ]` + extra + `
  }}}
}`
	return loadConfig(t, doc, nil)
}

func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// decode unmarshals JSON into a generic value.
func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q does not contain %q", s, sub)
		}
	}
}

// richHistory is a transcript leaf path exercising every conversion rule.
var richHistory = []json.RawMessage{
	raw(`{"role":"assistant","content":[{"type":"text","text":"[webchat] injected first"}],"stopReason":"injected","usage":{"input":0,"output":0,"totalTokens":0},"timestamp":1}`),
	raw(`{"role":"user","content":[{"type":"text","text":"check disk"},{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}],"timestamp":2}`),
	raw(`{"role":"assistant","content":[{"type":"thinking","thinking":"let me think","thinkingSignature":"sig"},{"type":"text","text":"running it"},{"type":"toolCall","id":"call|weird/id+1","name":"exec","arguments":{"cmd":"df -h"}},{"type":"toolCall","id":"call_2","name":"read","arguments":{"path":"/etc/fstab"}}],"api":"openai-completions","provider":"mock","model":"m1","stopReason":"toolUse","timestamp":3}`),
	raw(`{"role":"toolResult","toolCallId":"call|weird/id+1","toolName":"exec","content":[{"type":"text","text":"/dev/sda1 50%"}],"isError":false,"timestamp":4}`),
	raw(`{"role":"toolResult","toolCallId":"call_2","toolName":"read","content":[{"type":"text","text":"ENOENT"}],"isError":true,"timestamp":5}`),
	raw(`{"role":"toolResult","toolCallId":"call_zzz","toolName":"stray","content":[{"type":"text","text":"orphan output"}],"isError":false,"timestamp":6}`),
	raw(`{"role":"assistant","content":[{"type":"text","text":"disk is half full"}],"stopReason":"stop","timestamp":7}`),
	raw(`{"role":"assistant","content":[{"type":"text","text":"partial"}],"stopReason":"error","errorMessage":"boom","timestamp":8}`),
	raw(`{"role":"custom","customType":"note","content":"a custom note","display":true,"timestamp":9}`),
	raw(`{"role":"bashExecution","command":"ls","output":"a b","exitCode":2,"cancelled":false,"truncated":false,"timestamp":10}`),
	raw(`{"role":"bashExecution","command":"secret","output":"x","exitCode":0,"excludeFromContext":true,"timestamp":11}`),
	raw(`{"role":"compactionSummary","summary":"we talked","tokensBefore":10,"timestamp":12}`),
	raw(`{"role":"assistant","content":[{"type":"toolCall","id":"call_lost","name":"web_search","arguments":{"q":"x"}}],"stopReason":"toolUse","timestamp":13}`),
	raw(`{"role":"user","content":"plain string content","timestamp":14}`),
	raw(`{"role":"weirdRole","content":"skip me"}`),
	raw(`not json`),
}

// noHome builds system prompts without the real home directory (no
// workspace files) and in UTC.
var noHome = &persona.Env{Home: "/nonexistent-home", HostTZ: "UTC"}
