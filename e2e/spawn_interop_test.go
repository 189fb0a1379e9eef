//go:build interop

// `sessions spawn` against the real OpenClaw 2026.1.30 (../shared/peer).
// Run: make interop, or
// OPENCLAW_PEER=/path/to/openclaw-peer go test -tags interop -run SpawnChildSeenByOpenClaw ./e2e/
package e2e_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// openclawLoad reads a store with OpenClaw's own loadSessionStore and
// returns the entries of keys as OpenClaw sees them.
func openclawLoad(t *testing.T, node, ocDir, store string, keys ...string) map[string]json.RawMessage {
	t.Helper()
	script := `const m = await import(process.argv[1] + "/dist/config/sessions/store.js");
const s = m.loadSessionStore(process.argv[2], { skipCache: true });
const out = {};
for (const k of process.argv.slice(3)) out[k] = s[k] ?? null;
console.log(JSON.stringify(out));`
	cmd := exec.Command(node, append([]string{"--input-type=module", "-e", script, ocDir, store}, keys...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("OpenClaw loadSessionStore: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var res map[string]json.RawMessage
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("loadSessionStore output: %v\n%s", err, out)
	}
	return res
}

// TestInteropSpawnChildSeenByOpenClaw: children spawned by `sessions spawn`
// (same agent and cross-agent) are listed by the real `openclaw sessions
// --json --store`, read by OpenClaw's own store reader with spawnedBy,
// label and the model override intact, kept byte for byte by OpenClaw's
// read-modify-write; their transcripts, and the requester's transcript
// with the announce, are intact parentId chains for OpenClaw's checker.
func TestInteropSpawnChildSeenByOpenClaw(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	node, ocDir := peertest.Paths(t, p)
	tmp := t.TempDir()
	bin := peertest.BuildSessions(t)
	state, home := peertest.State(t)
	engine := filepath.Join(tmp, "engine.sh")
	_ = os.WriteFile(engine, []byte("req=$(cat)\ncase \"$req\" in *'Sub-agent announce step.\"'*) echo 'all done' ;; *) echo \"result of: $SESSIONS_MESSAGE\" ;; esac\n"), 0o755)
	run := func(args ...string) []byte {
		t.Helper()
		return peertest.Sessions(t, bin, state, []string{"SESSIONS_ENGINE=exec:sh " + engine}, args...)
	}
	type spawned struct{ key, store, label, spawnedBy string }
	var kids []spawned
	for _, c := range []struct{ as, agent, label string }{
		{"main", "", "interop-child"},
		{"agent:main:telegram:group:-100123", "ops", "interop-ops"},
	} {
		args := []string{"--as", c.as, "spawn", "interop task " + c.label, "--label", c.label, "--json"}
		agent := "main"
		if c.agent != "" {
			args = append(args, "--agent", c.agent)
			agent = c.agent
		}
		out := run(args...)
		key := gjson.GetBytes(out, "childSessionKey").String()
		spawnedBy := "agent:main:main"
		if c.as != "main" {
			spawnedBy = c.as
		}
		kids = append(kids, spawned{key, filepath.Join(state, "agents", agent, "sessions", "sessions.json"), c.label, spawnedBy})
	}
	deadline := time.Now().Add(5 * time.Minute) // the runs' turns, on a loaded machine
	for {
		out := run("runs", "--status", "ok", "--jq", ".count")
		if strings.TrimSpace(string(out)) == "2" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs did not end: %s", run("runs", "--json"))
		}
		time.Sleep(100 * time.Millisecond)
	}

	// 1. the real `openclaw sessions --json --store` lists the children
	for _, k := range kids {
		out := peertest.OpenClaw(t, p, home, state, "sessions", "--json", "--store", k.store)
		var listed struct {
			Sessions []map[string]any `json:"sessions"`
		}
		if err := json.Unmarshal(out, &listed); err != nil {
			t.Fatalf("openclaw sessions output: %v\n%s", err, out)
		}
		var row map[string]any
		for _, s := range listed.Sessions {
			if s["key"] == k.key {
				row = s
			}
		}
		data, _ := os.ReadFile(k.store)
		ours := gjson.GetBytes(data, gjson.Escape(k.key))
		if row == nil {
			t.Fatalf("openclaw sessions does not list %s", k.key)
		}
		if row["sessionId"] != ours.Get("sessionId").String() || int64(row["updatedAt"].(float64)) != ours.Get("updatedAt").Int() {
			t.Errorf("openclaw sessions row %v, our entry %s", row, ours.Raw)
		}
		// 1.30's CLI rows carry no label/spawnedBy; when they do, they must match
		if v, ok := row["label"]; ok && v != k.label {
			t.Errorf("row label %v", v)
		}
		if v, ok := row["spawnedBy"]; ok && v != k.spawnedBy {
			t.Errorf("row spawnedBy %v", v)
		}
		t.Logf("openclaw sessions lists %s (row fields: %d)", k.key, len(row))

		// 2. OpenClaw's own store reader sees spawnedBy, label, the model override
		got := openclawLoad(t, node, ocDir, k.store, k.key)[k.key]
		e := gjson.ParseBytes(got)
		if e.Get("spawnedBy").String() != k.spawnedBy || e.Get("label").String() != k.label ||
			e.Get("sessionId").String() != ours.Get("sessionId").String() ||
			e.Get("modelOverride").String() != "mock-2" || e.Get("providerOverride").String() != "mock" {
			t.Errorf("OpenClaw's loadSessionStore sees %s", got)
		}

		// 3. OpenClaw's read-modify-write keeps our entry byte for byte
		before := ours.Raw
		other := "agent:main:main"
		if !strings.Contains(k.store, "/main/") {
			other = "agent:ops:main"
		}
		if _, _, err := peertest.Tool(p, "store-write", "--store", k.store, "--key", other, "--count", "1"); err != nil {
			t.Fatal(err)
		}
		data, _ = os.ReadFile(k.store)
		if after := gjson.GetBytes(data, gjson.Escape(k.key)).Raw; after != before {
			t.Errorf("OpenClaw re-saved our child differently:\nours   %s\ntheirs %s", before, after)
		}

		// 4. the child's transcript is an intact chain: task and announce turns
		sid := ours.Get("sessionId").String()
		checkTranscript(t, p, filepath.Join(filepath.Dir(k.store), sid+".jsonl"), 4)
	}
	// the requesters' transcripts with the announce appended
	checkTranscript(t, p, filepath.Join(state, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl"), 0)
	checkTranscript(t, p, filepath.Join(state, "agents/main/sessions/31eb6da1-5350-4f6d-a238-558aa0d5e101.jsonl"), 0)
}

func checkTranscript(t *testing.T, p, file string, messages int) {
	t.Helper()
	if _, err := peertest.TranscriptCheck(p, file, messages); err != nil {
		t.Error(err)
	}
}
