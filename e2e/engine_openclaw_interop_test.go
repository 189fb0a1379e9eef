//go:build interop

// The openclaw engine against the real OpenClaw: `sessions send
// --engine openclaw` and `sessions spawn --engine openclaw` run real
// `openclaw agent --local` turns of 2026.1.30 with the peer's mock LLM — the
// reply is the mock's, OpenClaw writes the transcript itself (its own
// entries, one chain, our runner appends nothing), a spawned child runs a
// real tool and the announce carries the tool's result; `auto` picks
// openclaw when the peer's openclaw is on $PATH. 2026.9.6 (SQLite state,
// --session-key): the engine's turn on the 9.6 fixture, read back through our
// SQLite reader. Skips with one line without the peer.
// Run from the repository root: OPENCLAW_PEER=$PWD/../shared/peer/openclaw-peer
// go test -tags interop -run TestInteropOpenClawEngine -count=1 -v ./e2e/

package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/engine"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// peerEnv is the environment `openclaw-peer env [--version V] --home HOME`
// sets up (PATH with the peer's openclaw, HOME, TMPDIR, OpenClaw switches),
// as K=V lines.
func peerEnv(t *testing.T, p, home string, version ...string) []string {
	t.Helper()
	args := append([]string{"env"}, version...)
	args = append(args, "--home", home)
	cmd := exec.Command("sh", "-c", `eval "$("$0" "$@")" && mkdir -p "$TMPDIR" && { [ -e "$TMPDIR/jiti" ] || ln -s "$OPENCLAW_PEER_HOME/jiti-cache" "$TMPDIR/jiti"; } && env -0`, p)
	cmd.Args = append(cmd.Args, args...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("openclaw-peer env: %v", err)
	}
	var env []string
	for _, kv := range bytes.Split(out, []byte{0}) {
		if len(kv) > 0 {
			env = append(env, string(kv))
		}
	}
	return append(env, "OPENCLAW_SESSION_KEY=", "OPENCLAW_STATE_DIR=", "OPENCLAW_SANDBOXED=", "SESSIONS_ENGINE=", "SESSIONS_DELIVER=")
}

func envValue(env []string, k string) string {
	v := ""
	for _, kv := range env {
		if strings.HasPrefix(kv, k+"=") {
			v = kv[len(k)+1:]
		}
	}
	return v
}

// sessionsEnv runs our binary with exactly env.
func sessionsEnv(t *testing.T, bin, state string, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--state-dir", state}, args...)...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sessions %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	if s := stderr.String(); s != "" {
		t.Logf("sessions %s: stderr:\n%s", args[0], s)
	}
	return out
}

// transcriptEntries are the JSONL entries of file from byte offset on.
func transcriptEntries(t *testing.T, file string, offset int64) []map[string]any {
	t.Helper()
	data := mustRead(t, file)[offset:]
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(l, &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func TestInteropOpenClawEngine130(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	state, home := peertest.State(t)
	url, _ := peertest.StartMockLLM(t, p)
	peertest.SetProviderURL(t, state, "mock", url)
	env := peerEnv(t, p, home)

	var st map[string]map[string]any
	decode(t, "sessions.json", mustRead(t, filepath.Join(state, "agents", "main", "sessions", "sessions.json")), &st)
	sid, _ := st["agent:main:main"]["sessionId"].(string)
	file := filepath.Join(state, "agents", "main", "sessions", sid+".jsonl")
	before, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}

	// 1. send, auto: the peer's openclaw is on $PATH, so auto takes it
	msg := "engine interop: hello openclaw"
	var res struct{ RunID, Status, Reply string }
	decode(t, "send", sessionsEnv(t, bin, state, env, "--log-level", "debug", "send", "main", msg, "--json", "--timeout", "300"), &res)
	if res.Status != "ok" || !strings.HasPrefix(res.Reply, "MOCK reply") || !strings.Contains(res.Reply, "Agent-to-agent message context") {
		t.Fatalf("send: %+v", res)
	}
	waitRunsDone(t, bin, state)
	var runs struct {
		Runs []struct{ Engine, Status string } `json:"runs"`
	}
	decode(t, "runs", peertest.Sessions(t, bin, state, nil, "runs", "--json"), &runs)
	if len(runs.Runs) != 1 || !strings.HasPrefix(runs.Runs[0].Engine, "openclaw:") || runs.Runs[0].Status != "ok" {
		t.Fatalf("runs: %+v", runs.Runs)
	}
	// OpenClaw wrote the turn (its api, its ids), once; one chain
	users, ours := 0, 0
	for _, e := range transcriptEntries(t, file, before.Size()) {
		m, _ := e["message"].(map[string]any)
		if m == nil {
			continue
		}
		if m["role"] == "user" && strings.HasSuffix(messageText(m), "\n\n"+msg) {
			users++
		}
		if api, _ := m["api"].(string); api == "exec" || api == "openclaw" || api == "sessions-cli" {
			ours++
		}
	}
	if users != 1 || ours != 0 {
		t.Fatalf("transcript: the user message %d times, %d messages written by sessions", users, ours)
	}
	if out, err := peertest.TranscriptCheck(p, file, 0); err != nil {
		t.Fatal(err)
	} else {
		t.Logf("transcript-check: %s", out)
	}

	// 2. spawn --engine openclaw: the child runs a real tool (the mock's
	// [[tool:exec …]]), the announce carries its result
	task := `interop child: [[tool:exec {"command":"echo oc-spawn-tool-42"}]]`
	var sp struct{ Status, ChildSessionKey, RunID string }
	decode(t, "spawn", sessionsEnv(t, bin, state, env, "spawn", task, "--engine", "openclaw", "--json"), &sp)
	if sp.Status != "accepted" {
		t.Fatalf("spawn: %+v", sp)
	}
	var w struct{ Status, Reply string }
	decode(t, "wait", sessionsEnv(t, bin, state, env, "wait", sp.RunID, "--timeout", "300", "--json"), &w)
	if w.Status != "ok" || !strings.Contains(w.Reply, "oc-spawn-tool-42") {
		t.Fatalf("child reply: %+v", w)
	}
	waitRunsDone(t, bin, state)
	outbox := string(mustRead(t, filepath.Join(state, "sessions-cli", "outbox.jsonl")))
	if !strings.Contains(outbox, "oc-spawn-tool-42") {
		t.Fatalf("announce without the tool result:\n%s", outbox)
	}
	// the child's transcript holds OpenClaw's tool call and result
	var hist struct {
		Messages []map[string]any `json:"messages"`
	}
	decode(t, "history", peertest.Sessions(t, bin, state, nil, "history", sp.ChildSessionKey, "--raw", "--include-tools", "--json"), &hist)
	tool := false
	for _, m := range hist.Messages {
		if m["role"] == "toolResult" && strings.Contains(messageText(m), "oc-spawn-tool-42") {
			tool = true
		}
	}
	if !tool {
		t.Fatalf("no exec tool result in the child's transcript: %d messages", len(hist.Messages))
	}
}

func TestInteropOpenClawEngine96(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	if err := exec.Command(p, "status", "--version", "2026.9.6").Run(); err != nil {
		t.Skip("OpenClaw 2026.9.6 is not installed in the peer (openclaw-peer install --version 2026.9.6)")
	}
	bin := peertest.BuildSessions(t)
	root := t.TempDir()
	state, home := filepath.Join(root, "state"), filepath.Join(root, "home")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.9.6"), state); err != nil {
		t.Fatal(err)
	}
	_ = os.MkdirAll(home, 0o755)
	url, _ := peertest.StartMockLLM(t, p)
	peertest.EditConfig(t, state, func(cfg map[string]any) {
		cfg["models"].(map[string]any)["providers"].(map[string]any)["mock"].(map[string]any)["baseUrl"] = url
		if l, ok := cfg["logging"].(map[string]any); ok {
			l["file"] = filepath.Join(root, "openclaw.log")
		}
	})
	env := peerEnv(t, p, home, "--version", "2026.9.6")
	cfg, err := config.Load(filepath.Join(state, "openclaw.json"), config.Env{Getenv: func(k string) string { return envValue(env, k) }, Home: home, Cwd: root})
	if err != nil {
		t.Fatal(err)
	}
	bin96, err := engine.FindOpenClaw("", func(k string) string { return envValue(env, k) })
	if err != nil {
		t.Fatal(err)
	}
	e := &engine.OpenClaw{Bin: bin96, Config: cfg, StateDir: state, CacheDir: filepath.Join(state, "sessions-cli")}
	// One turn is a 9.6 start-up (13-15 s idle) and a mock reply, but on a
	// loaded machine it ran into 4 minutes: the deadline is only there so
	// that a hung turn ends the test.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	msg := "engine interop 9.6: hello"
	res, err := e.Turn(ctx, engine.Request{AgentID: "main", SessionKey: "agent:main:main", Message: msg, Timeout: 12 * time.Minute, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Reply, "MOCK reply") || !res.WroteTranscript || !res.WroteStore || res.Usage.Input == 0 {
		t.Fatalf("result: %+v", res)
	}
	// 2026.9.6 wrote the turn into its SQLite store: our reader sees it
	var hist struct {
		Messages []map[string]any `json:"messages"`
	}
	decode(t, "history", peertest.Sessions(t, bin, state, nil, "history", "main", "--raw", "--limit", "4", "--json"), &hist)
	found := false
	for _, m := range hist.Messages {
		if m["role"] == "assistant" && strings.Contains(messageText(m), res.Reply) {
			found = true
		}
	}
	if !found {
		t.Fatalf("the 9.6 turn is not in the session's history: %v", hist.Messages)
	}
}
