//go:build interop

package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropSpawnOverGateway: against REAL gateways of both versions,
// `sessions --gateway URL spawn` (no local state dir) makes a child that
// OpenClaw lists — with spawnedBy on 1.30 (its store), parentSessionKey on
// 9.6 (`openclaw sessions --json`) — the run ends ok (task and announce
// step), and the announce reaches the requester's transcript on the
// gateway's host. On 2026.9.6 a plain `sessions spawn` on the state dir
// whose gateway is up goes through that gateway (said at debug level), and
// no transcript event of the database is one we wrote.
func TestInteropSpawnOverGateway(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	for _, version := range []string{"2026.1.30", "2026.9.6"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			g := peertest.StartGateway(t, p, version)
			const req = "agent:main:main"
			cl := g.Seeded(t, req)
			env, gw := cl.Env, cl.Flags

			out, _ := gwRun(t, bin, env, append(gw, "spawn", "interop spawn over the gateway", "--label", "interop-gw", "--json")...)
			child, runID := gjson.GetBytes(out, "childSessionKey").String(), gjson.GetBytes(out, "runId").String()
			if !strings.HasPrefix(child, "agent:main:subagent:") || runID == "" {
				t.Fatalf("spawn: %s", out)
			}
			rec := waitRunOK(t, bin, env, gw, runID)
			if steps := gjson.Get(rec, "steps.#.name").String(); steps != `["task","announce"]` {
				t.Errorf("steps %s", steps)
			}
			if r := gjson.Get(rec, "reply").String(); !strings.Contains(r, "MOCK") {
				t.Errorf("reply %q", r)
			}
			t.Logf("run: route %s, announced via %s, delivery %s", gjson.Get(rec, "spawn.gatewayRoute"), gjson.Get(rec, "spawn.announcedVia"), gjson.Get(rec, "delivery.status"))
			checkChild(t, p, g, child, req, "interop-gw")
			if !requesterHas(t, bin, g, "Status: completed successfully") {
				t.Fatalf("the announce is not in the requester's transcript on the gateway's host")
			}
			if version != "2026.9.6" {
				return
			}

			// the current era without a flag: through the live gateway
			local := []string{"--state-dir", g.StateDir, "--config", g.ConfigPath}
			out, stderr := gwRun(t, bin, env, append(local, "--log-level", "debug", "spawn", "interop auto-routed spawn", "--json")...)
			if !strings.Contains(stderr, "writing through the gateway, not the database") {
				t.Fatalf("no routing line:\n%s", stderr)
			}
			child, runID = gjson.GetBytes(out, "childSessionKey").String(), gjson.GetBytes(out, "runId").String()
			waitRunOK(t, bin, env, local, runID)
			checkChild(t, p, g, child, req, "")
			for _, k := range g.EventIdempotencyKeys(t, "main") {
				if strings.HasPrefix(k, "sessions-cli:") {
					t.Errorf("an event we wrote ourselves: %s", k)
				}
			}
		})
	}
}

var gwRun = peertest.RunSessions

// waitRunOK waits for the run to end ok and returns its record.
var waitRunOK = peertest.WaitRunOK

// checkChild: OpenClaw lists the child with its lineage — 1.30's store has
// spawnedBy (its CLI rows do not show it), 9.6's rows parentSessionKey.
func checkChild(t *testing.T, p string, g *peertest.Gateway, child, req, label string) {
	t.Helper()
	out := g.OpenClaw(t, p, "sessions", "--json")
	row := gjson.GetBytes(out, "sessions.#(key==\""+child+"\")")
	if !row.Exists() {
		t.Fatalf("openclaw sessions --json does not list %s: %s", child, out)
	}
	if g.Version == "2026.1.30" {
		data, err := os.ReadFile(filepath.Join(g.StateDir, "agents", "main", "sessions", "sessions.json"))
		if err != nil {
			t.Fatal(err)
		}
		e := gjson.GetBytes(data, gjson.Escape(child))
		if e.Get("spawnedBy").String() != req || e.Get("label").String() != label {
			t.Fatalf("1.30 child entry: %s", e.Raw)
		}
		return
	}
	if row.Get("parentSessionKey").String() != req || (label != "" && row.Get("label").String() != label) {
		t.Fatalf("9.6 child row: %s", row.Raw)
	}
}

// requesterHas: an assistant message of agent:main:main on the gateway's
// host contains text (read with `sessions history` on its state dir).
func requesterHas(t *testing.T, bin string, g *peertest.Gateway, text string) bool {
	t.Helper()
	out, _ := gwRun(t, bin, nil, "--state-dir", g.StateDir, "--config", g.ConfigPath, "history", "main", "--limit", "50", "--json")
	var h struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(out, &h); err != nil {
		t.Fatal(err)
	}
	for _, m := range h.Messages {
		for _, b := range gjson.GetBytes(m, "content").Array() {
			if gjson.GetBytes(m, "role").String() == "assistant" && strings.Contains(b.Get("text").String(), text) {
				return true
			}
		}
	}
	return false
}
