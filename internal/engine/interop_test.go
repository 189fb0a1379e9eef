//go:build interop

// Interop tests against the OpenClaw 2026.1.30 peer (../shared/peer): its
// deterministic mock LLM, and `openclaw agent --local` as an exec engine.
// Run: OPENCLAW_PEER=/path/to/openclaw-peer go test -tags interop ./internal/engine/
package engine

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

const (
	fixtureState = "../../testdata/state-2026.1.30"
	// agent:main:telegram:group:-100123 — user, assistant, user, assistant
	// toolCall, toolResult, assistant, user, assistant
	fixtureSessionID = "31eb6da1-5350-4f6d-a238-558aa0d5e101"
)

// leafPath reads a transcript's messages on the leaf path, root → leaf.
func leafPath(t *testing.T, path string) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Type     string          `json:"type"`
		ID       string          `json:"id"`
		ParentID *string         `json:"parentId"`
		Message  json.RawMessage `json:"message"`
	}
	byID := map[string]entry{}
	var last entry
	for _, line := range strings.Split(string(data), "\n") {
		var e entry
		if json.Unmarshal([]byte(line), &e) != nil || e.Type == "session" || e.ID == "" {
			continue
		}
		byID[e.ID] = e
		last = e
	}
	var msgs []json.RawMessage
	for e, ok := last, last.ID != ""; ok; {
		if e.Type == "message" {
			msgs = append([]json.RawMessage{e.Message}, msgs...)
		}
		if e.ParentID == nil {
			break
		}
		e, ok = byID[*e.ParentID]
	}
	return msgs
}

// pythonPromptTokens computes the mock's prompt_tokens for a logged request's
// messages exactly as mock_llm.py does: max(1, len(json.dumps(messages)) // 4).
func pythonPromptTokens(t *testing.T, messages []map[string]any) int {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"messages": messages})
	cmd := exec.Command("python3", "-c", "import json,sys; r=json.load(sys.stdin); print(max(1, len(json.dumps(r.get('messages') or [])) // 4))")
	cmd.Stdin = strings.NewReader(string(b))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func fixtureConfig(t *testing.T, path, baseURL string) *config.Config {
	t.Helper()
	cfg, err := config.Load(path, config.Env{Getenv: func(string) string { return "" }, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := cfg.Models.Providers["mock"]
	if !ok || p.API != "openai-completions" {
		t.Fatalf("fixture provider mock: %+v", p)
	}
	p.BaseURL = baseURL
	cfg.Models.Providers["mock"] = p
	return cfg
}

// A provider turn against the real mock LLM with the fixture's provider and
// a real transcript (with a tool call) as context.
func TestInteropProviderTurnWithPeerMockLLM(t *testing.T) {
	p := peertest.Peer(t)
	url, logPath := peertest.StartMockLLM(t, p)
	cfg := fixtureConfig(t, filepath.Join(fixtureState, "openclaw.json"), url)
	provider, model := cfg.ModelFor("main")
	if provider != "mock" || model != "mock-1" {
		t.Fatalf("model %s/%s", provider, model)
	}
	history := leafPath(t, filepath.Join(fixtureState, "agents/main/sessions", fixtureSessionID+".jsonl"))
	if len(history) != 8 {
		t.Fatalf("fixture leaf path has %d messages", len(history))
	}
	e, err := New("provider", cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Turn(context.Background(), Request{
		AgentID: "main", SessionKey: "agent:main:telegram:group:-100123", SessionID: fixtureSessionID,
		History: history, Message: "hello from the go engine", Provider: provider, Model: model,
		Timeout: 5 * time.Minute, // a deadline for a hang only: a loaded machine is slow

	})
	if err != nil {
		t.Fatal(err)
	}
	// the mock counts the user messages: 3 in the history + the new one
	if res.Reply != "MOCK reply #4: hello from the go engine" {
		t.Errorf("reply %q", res.Reply)
	}
	logs := peertest.ReadMockLog(t, logPath)
	if len(logs) != 1 {
		t.Fatalf("%d requests logged", len(logs))
	}
	l := logs[0]
	// the same roles OpenClaw itself sends for this transcript
	wantRoles := []string{"system", "user", "assistant", "user", "assistant", "tool", "assistant", "user", "assistant", "user"}
	if !reflect.DeepEqual(l.Roles, wantRoles) || l.Stream {
		t.Errorf("roles %v (stream %v), want %v", l.Roles, l.Stream, wantRoles)
	}
	prompt := pythonPromptTokens(t, l.Request.Messages)
	completion := max(1, len(res.Reply)/4)
	want := Usage{Input: prompt, Output: completion, TotalTokens: prompt + completion}
	if res.Usage != want || res.PromptTokens != prompt {
		t.Errorf("usage %+v (prompt %d), want %+v", res.Usage, res.PromptTokens, want)
	}
	a := decode(t, res.Assistant)
	if a["api"] != "openai-completions" || a["provider"] != "mock" || a["model"] != "mock-1" || a["stopReason"] != "stop" {
		t.Errorf("assistant %s", res.Assistant)
	}
	t.Logf("reply %q, usage %+v", res.Reply, res.Usage)
}

// The real `openclaw agent --local` as an exec engine on a copy of the
// fixture state: plain-text reply, and the turn it wrote itself is detected.
func TestInteropExecOpenClawAgentLocal(t *testing.T) {
	p := peertest.Peer(t)
	url, logPath := peertest.StartMockLLM(t, p)
	state, home := peertest.State(t)
	peertest.SetProviderURL(t, state, "mock", url)
	cfgPath := filepath.Join(state, "openclaw.json")
	cfg := fixtureConfig(t, cfgPath, url)
	transcript := filepath.Join(state, "agents/main/sessions", fixtureSessionID+".jsonl")
	history := leafPath(t, transcript)

	e, err := New(`exec:"$PEER" run --home "$PEER_HOME_DIR" --state "$PEER_STATE" --timeout 590 -- agent --local --agent "$SESSIONS_AGENT_ID" --session-id "$SESSIONS_SESSION_ID" --message "$SESSIONS_MESSAGE"`, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Turn(context.Background(), Request{
		AgentID: "main", SessionKey: "agent:main:telegram:group:-100123", SessionID: fixtureSessionID,
		TranscriptPath: transcript, History: history, Message: "hello through openclaw agent",
		Provider: "mock", Model: "mock-1", Timeout: 10 * time.Minute, // OpenClaw's start-up under load: minutes

		Env: []string{"PEER=" + p, "PEER_HOME_DIR=" + home, "PEER_STATE=" + state},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reply != "MOCK reply #4: hello through openclaw agent" {
		t.Errorf("reply %q", res.Reply)
	}
	if !res.WroteTranscript {
		t.Error("openclaw agent --local wrote the transcript, but WroteTranscript is false")
	}
	after := leafPath(t, transcript)
	if len(after) != len(history)+2 {
		t.Errorf("transcript has %d messages on its leaf path, want %d", len(after), len(history)+2)
	}
	// OpenClaw sent the same roles for this transcript as our provider engine does
	logs := peertest.ReadMockLog(t, logPath)
	wantRoles := []string{"system", "user", "assistant", "user", "assistant", "tool", "assistant", "user", "assistant", "user"}
	if len(logs) != 1 || !reflect.DeepEqual(logs[0].Roles, wantRoles) {
		t.Errorf("OpenClaw's request roles: %+v", logs)
	}
}
