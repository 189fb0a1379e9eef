//go:build interop

// `sessions mcp` as the real OpenClaw 2026.9.6 agent's MCP server: the
// peer's config gets mcp.servers.sessions (our binary, `mcp --read-only`,
// the state dir in env: OpenClaw starts stdio servers with a default
// environment, without its own OPENCLAW_STATE_DIR), and one embedded turn
// (`openclaw agent --local`) whose mock model calls sessions_list and
// sessions_history. 2026.9.6 puts MCP tools behind its tool search: the
// model reaches them through `tool_call` with the names OpenClaw gives
// them, <server>__<tool> (sessions__sessions_list). The calls and our
// results (keys and text of the state) must be in the turn's transcript,
// read back with our own `sessions history`. Skips with one line without
// the peer. Run: make interop (or OPENCLAW_PEER=$PWD/../shared/peer/openclaw-peer
// go test -tags interop -run TestInteropOpenClawMCPClient -count=1 -v ./e2e/).

package e2e_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

func TestInteropOpenClawMCPClient(t *testing.T) {
	t.Parallel() // free ports and temp dirs only: beside the other tests
	p := peertest.Peer(t)
	peertest.InstallVersion(t, p, "2026.9.6")
	bin := peertest.BuildSessions(t)
	root := t.TempDir()
	state, home := filepath.Join(root, "state"), filepath.Join(root, "home")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.9.6"), state); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	url, _ := peertest.StartMockLLM(t, p)
	peertest.EditConfig(t, state, func(cfg map[string]any) {
		cfg["models"].(map[string]any)["providers"].(map[string]any)["mock"].(map[string]any)["baseUrl"] = url
		if l, ok := cfg["logging"].(map[string]any); ok {
			l["file"] = filepath.Join(root, "openclaw.log")
		}
		cfg["mcp"] = map[string]any{"servers": map[string]any{"sessions": map[string]any{
			"command": bin,
			"args":    []string{"mcp", "--read-only"},
			"env":     map[string]string{"OPENCLAW_STATE_DIR": state},
		}}}
	})

	const (
		key   = "agent:main:hook:github:push-42"    // the turn's session
		group = "agent:main:telegram:group:-100123" // read through our server
	)
	msg := `[[tools:tool_call {"id":"sessions__sessions_list","args":{}};;` +
		`tool_call {"id":"sessions__sessions_history","args":{"sessionKey":"` + group + `"}}]]`
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p, "run", "--version", "2026.9.6", "--home", home, "--state", state, "--cwd", home, "--timeout", "280", "--",
		"agent", "--local", "--session-key", key, "--message", msg, "--json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("openclaw agent: %v\n%s\n%s", err, stdout.Bytes(), stderr.Bytes())
	}
	t.Logf("the agent turn took %s", time.Since(start).Round(time.Millisecond))

	// the turn, as OpenClaw stored it, read with our own history
	var hist struct {
		Messages []map[string]any `json:"messages"`
	}
	decode(t, "history", peertest.Sessions(t, bin, state, nil, "history", key, "--include-tools", "--raw", "--limit", "10", "--json"), &hist)
	calls := map[string]string{} // toolCallId → the MCP tool the model named
	results := map[string]string{}
	var final string
	for _, m := range hist.Messages {
		switch m["role"] {
		case "assistant":
			blocks, _ := m["content"].([]any)
			for _, b := range blocks {
				bm, _ := b.(map[string]any)
				if bm["type"] == "toolCall" && bm["name"] == "tool_call" {
					args, _ := bm["arguments"].(map[string]any)
					id, _ := args["id"].(string)
					calls[bm["id"].(string)] = id
				}
				if bm["type"] == "text" {
					final, _ = bm["text"].(string)
				}
			}
		case "toolResult":
			if m["isError"] == true {
				t.Errorf("tool result %v is an error: %.800s", m["toolCallId"], messageText(m))
			}
			id, _ := m["toolCallId"].(string)
			results[id] = messageText(m)
		}
	}
	want := map[string][]string{
		// OpenClaw's record of the MCP call, then what our server answered:
		// rows of the state (keys, a sessionId) and a message of the group
		"sessions__sessions_list":    {`"id": "mcp:sessions:sessions__sessions_list"`, `\"key\": \"` + group + `\"`, `\"key\": \"` + key + `\"`, "c2089fe4-f9dc-41f6-961d-f0b94413fefa"},
		"sessions__sessions_history": {`"id": "mcp:sessions:sessions__sessions_history"`, `\"sessionKey\": \"` + group + `\"`, "Telegram group status"},
	}
	seen := map[string]bool{}
	for id, tool := range calls {
		res, ok := results[id]
		if !ok {
			t.Errorf("no tool result for the call of %s (%s)", tool, id)
			continue
		}
		for _, w := range want[tool] {
			if !strings.Contains(res, w) {
				t.Errorf("the result of %s lacks %s:\n%.3000s", tool, w, res)
			}
		}
		seen[tool] = true
	}
	for tool := range want {
		if !seen[tool] {
			t.Errorf("the model's call of %s is not in the transcript (calls %v)", tool, calls)
		}
	}
	if !strings.HasPrefix(final, "MOCK: tool tool_call returned") {
		t.Errorf("the turn's final reply: %q", final)
	}
	if t.Failed() {
		t.Logf("openclaw agent stderr:\n%s", stderr.Bytes())
	}
}
