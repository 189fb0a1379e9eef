//go:build interop

// Interop tests against the OpenClaw 2026.1.30 peer (../shared/peer): its
// deterministic mock LLM, and `openclaw agent --local` as an exec engine.
// Run: OPENCLAW_PEER=/path/to/openclaw-peer go test -tags interop ./internal/engine/
package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/config"
)

const (
	fixtureState = "../../testdata/state-2026.1.30"
	// agent:main:telegram:group:-100123 — user, assistant, user, assistant
	// toolCall, toolResult, assistant, user, assistant
	fixtureSessionID = "31eb6da1-5350-4f6d-a238-558aa0d5e101"
)

var (
	peerOnce sync.Once
	peerSkip string
	peerErr  error
)

// peer returns the openclaw-peer script, installing the peer on first use, or
// skips the test with one line.
func peer(t *testing.T) string {
	t.Helper()
	p := os.Getenv("OPENCLAW_PEER")
	if p == "" {
		t.Skip("OPENCLAW_PEER not set (run: make interop)")
	}
	peerOnce.Do(func() {
		out, err := exec.Command(p, "install").CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 75 {
			peerSkip = "OpenClaw peer unavailable (openclaw-peer install exited 75): " + lastLine(string(out))
		} else if err != nil {
			peerErr = fmt.Errorf("openclaw-peer install: %v\n%s", err, out)
		}
	})
	if peerSkip != "" {
		t.Skip(peerSkip)
	}
	if peerErr != nil {
		t.Fatal(peerErr)
	}
	return p
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startMockLLM starts the peer's mock LLM on a free port (stopped by PID at
// the end of the test) and returns its base URL and request log.
func startMockLLM(t *testing.T, p string) (baseURL, logPath string) {
	t.Helper()
	port := freePort(t)
	logPath = filepath.Join(t.TempDir(), "mock-llm.jsonl")
	cmd := exec.Command(p, "mock-llm", "--port", strconv.Itoa(port), "--max-seconds", "120", "--log", logPath, "--log-full")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid // mock-llm execs the server: this PID is the server
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(pid, syscall.SIGKILL)
			<-done
		}
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on") {
				ready <- sc.Text()
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("mock-llm did not start")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/v1", port), logPath
}

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

type mockLog struct {
	Roles    []string       `json:"roles"`
	Stream   bool           `json:"stream"`
	Decision map[string]any `json:"decision"`
	Request  map[string]any `json:"request"`
}

func readMockLog(t *testing.T, path string) []mockLog {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []mockLog
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l mockLog
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("mock log line: %v", err)
		}
		out = append(out, l)
	}
	return out
}

// pythonPromptTokens computes the mock's prompt_tokens for a logged request
// exactly as mock_llm.py does: max(1, len(json.dumps(messages)) // 4).
func pythonPromptTokens(t *testing.T, req map[string]any) int {
	t.Helper()
	b, _ := json.Marshal(req)
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
	p := peer(t)
	url, logPath := startMockLLM(t, p)
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
		Timeout: 30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	// the mock counts the user messages: 3 in the history + the new one
	if res.Reply != "MOCK reply #4: hello from the go engine" {
		t.Errorf("reply %q", res.Reply)
	}
	logs := readMockLog(t, logPath)
	if len(logs) != 1 {
		t.Fatalf("%d requests logged", len(logs))
	}
	l := logs[0]
	// the same roles OpenClaw itself sends for this transcript
	wantRoles := []string{"system", "user", "assistant", "user", "assistant", "tool", "assistant", "user", "assistant", "user"}
	if !reflect.DeepEqual(l.Roles, wantRoles) || l.Stream {
		t.Errorf("roles %v (stream %v), want %v", l.Roles, l.Stream, wantRoles)
	}
	prompt := pythonPromptTokens(t, l.Request)
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
	p := peer(t)
	url, logPath := startMockLLM(t, p)
	tmp := t.TempDir()
	state := filepath.Join(tmp, "state")
	if out, err := exec.Command("cp", "-a", fixtureState, state).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	cfgPath := filepath.Join(state, "openclaw.json")
	var doc map[string]any
	data, _ := os.ReadFile(cfgPath)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["models"].(map[string]any)["providers"].(map[string]any)["mock"].(map[string]any)["baseUrl"] = url
	doc["logging"].(map[string]any)["file"] = filepath.Join(tmp, "openclaw.log")
	data, _ = json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(cfgPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fixtureConfig(t, cfgPath, url)
	transcript := filepath.Join(state, "agents/main/sessions", fixtureSessionID+".jsonl")
	history := leafPath(t, transcript)

	e, err := New(`exec:"$PEER" run --home "$PEER_HOME_DIR" --state "$PEER_STATE" --timeout 110 -- agent --local --agent "$SESSIONS_AGENT_ID" --session-id "$SESSIONS_SESSION_ID" --message "$SESSIONS_MESSAGE"`, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Turn(context.Background(), Request{
		AgentID: "main", SessionKey: "agent:main:telegram:group:-100123", SessionID: fixtureSessionID,
		TranscriptPath: transcript, History: history, Message: "hello through openclaw agent",
		Provider: "mock", Model: "mock-1", Timeout: 120 * time.Second,
		Env: []string{"PEER=" + p, "PEER_HOME_DIR=" + filepath.Join(tmp, "home"), "PEER_STATE=" + state},
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
	logs := readMockLog(t, logPath)
	wantRoles := []string{"system", "user", "assistant", "user", "assistant", "tool", "assistant", "user", "assistant", "user"}
	if len(logs) != 1 || !reflect.DeepEqual(logs[0].Roles, wantRoles) {
		t.Errorf("OpenClaw's request roles: %+v", logs)
	}
}
