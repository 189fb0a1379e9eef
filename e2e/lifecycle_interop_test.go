//go:build interop

package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropLifecycle: delete, reset and prune beside the real OpenClaw
// 2026.1.30 writer (store-write hammering another key of the same store):
// none of its updates is lost; the real `openclaw sessions --json` no longer
// lists what we deleted and still lists everything else; a 1.30 gateway
// started afterwards runs a turn on the session we reset and writes the new
// sessionId's transcript.
func TestInteropLifecycle(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	state, home := peertest.State(t)
	bin := peertest.BuildSessions(t)
	storePath := filepath.Join(state, "agents", "main", "sessions", "sessions.json")
	const hammered = "agent:main:signal:dm:+15551230001"
	const n = 600
	before := listKeys(t, p, home, state)
	writer := peertest.Start(t, p, "store-write", "--store", storePath, "--key", hammered, "--count", "600")
	peertest.Sessions(t, bin, state, nil, "delete", "agent:main:hook:github:push-42", "--json")
	reset := peertest.Sessions(t, bin, state, nil, "reset", "main", "--json")
	newID := gjson.GetBytes(reset, "sessions.0.newSessionId").Str
	pruned := peertest.Sessions(t, bin, state, nil, "prune", "--older-than", "1d", "--kinds", "cron", "--yes", "--json")
	prunedKeys := map[string]bool{}
	for _, k := range gjson.GetBytes(pruned, "sessions.#.key").Array() {
		prunedKeys[k.Str] = true
	}
	if len(prunedKeys) == 0 {
		t.Fatalf("prune removed nothing: %s", pruned)
	}
	overlapped := writer.Running()
	res := writer.Result(t)
	if !overlapped {
		t.Errorf("store-write ended before our writes did: the test proved nothing (raise its count)")
	}
	t.Logf("store-write: %d updates beside ours (p50 %v ms, max %v ms)", n, res.P50Ms, res.MaxMs)

	data, err := os.ReadFile(storePath)
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(data, gjson.Escape(hammered)+".peerCounter").Int(); got != n {
		t.Errorf("OpenClaw's updates lost: peerCounter %d, want %d", got, n)
	}
	after := listKeys(t, p, home, state)
	gone := map[string]bool{"agent:main:hook:github:push-42": true}
	for k := range prunedKeys {
		gone[k] = true
	}
	for k := range before {
		if gone[k] && after[k] != "" {
			t.Errorf("openclaw sessions still lists %s", k)
		}
		if !gone[k] && after[k] == "" {
			t.Errorf("openclaw sessions no longer lists %s", k)
		}
	}
	if after["agent:main:main"] != newID {
		t.Errorf("openclaw sessions: agent:main:main has sessionId %q, want the reset's %s", after["agent:main:main"], newID)
	}

	// A real 1.30 gateway runs a turn on the reset session.
	gwHome := filepath.Join(t.TempDir(), "gw")
	out, err := exec.Command(p, "gateway", "start", "--home", gwHome, "--state", state, "--max-seconds", "300").Output()
	t.Cleanup(func() { _ = exec.Command(p, "gateway", "stop", "--home", gwHome).Run() })
	if err != nil {
		t.Fatalf("gateway start: %v\n%s", err, out)
	}
	params := `{"message":"hello after reset","sessionKey":"agent:main:main","idempotencyKey":"lifecycle-1"}`
	call, err := exec.Command(p, "gateway", "call", "--home", gwHome, "agent", "--params", params, "--expect-final", "--timeout", "120000", "--json").CombinedOutput()
	if err != nil {
		t.Fatalf("gateway call agent: %v\n%s", err, call)
	}
	file := filepath.Join(state, "agents", "main", "sessions", newID+".jsonl")
	tr, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the turn wrote no transcript for the new sessionId: %v\n%s", err, call)
	}
	first, _, _ := strings.Cut(string(tr), "\n")
	if gjson.Get(first, "id").Str != newID || !strings.Contains(string(tr), `"role":"assistant"`) {
		t.Fatalf("transcript %s: header %s, no assistant reply?\n%s", file, first, tr)
	}
}

// listKeys is the real `openclaw sessions --json`: key → sessionId.
func listKeys(t *testing.T, p, home, state string) map[string]string {
	t.Helper()
	out := peertest.OpenClaw(t, p, home, state, "sessions", "--json")
	var doc struct {
		Sessions []struct {
			Key       string `json:"key"`
			SessionID string `json:"sessionId"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("openclaw sessions --json: %v\n%s", err, out)
	}
	m := map[string]string{}
	for _, s := range doc.Sessions {
		m[s.Key] = s.SessionID
	}
	if len(m) == 0 {
		t.Fatalf("openclaw sessions --json listed nothing:\n%s", out)
	}
	return m
}
