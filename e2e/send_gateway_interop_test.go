//go:build interop

package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropSendOverGateway: against REAL gateways of both versions,
// `sessions --gateway URL send` with no local state dir gets the mock LLM's
// reply, `wait` and `runs` with the same gateway find the run, and the
// transcript on the gateway's host has the turn (1.30: its JSONL file;
// 9.6: its SQLite store, read with `sessions history` on that state). On
// 2026.9.6, a plain `sessions send` on the state dir whose gateway is up
// goes through that gateway (said at debug level): the transcript events
// carry our gateway idempotency key sessions-<run>-<step>, and none of
// them is one we wrote (our own writes' keys start "sessions-cli:").
func TestInteropSendOverGateway(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	for _, version := range []string{"2026.1.30", "2026.9.6"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			g := peertest.StartGateway(t, p, version)
			const key = "agent:main:main"
			cl := g.Seeded(t, key)
			env, gw := cl.Env, cl.Flags

			// a named gateway, no state dir
			out, _ := sendRun(t, bin, env, append(gw, "send", "main", "interop over a named gateway", "--json")...)
			reply := gjson.GetBytes(out, "reply").String()
			if !strings.Contains(reply, "MOCK") || gjson.GetBytes(out, "status").String() != "ok" {
				t.Fatalf("send: %s", out)
			}
			runID := gjson.GetBytes(out, "runId").String()
			waitOK(t, bin, env, gw, runID)
			out, _ = sendRun(t, bin, env, append(gw, "wait", runID, "--json")...)
			if gjson.GetBytes(out, "reply").String() != reply {
				t.Fatalf("wait: %s", out)
			}
			if !hostHas(t, bin, g, reply) {
				t.Fatalf("the transcript on the gateway's host lacks the reply %q", reply)
			}
			benchSend(t, p, bin, g, env, gw)
			if version != "2026.9.6" {
				return
			}

			// the current era without a flag: through the live gateway
			local := []string{"--state-dir", g.StateDir, "--config", g.ConfigPath}
			out, stderr := sendRun(t, bin, env, append(local, "--log-level", "debug", "send", "main", "interop auto-routed", "--json")...)
			if !strings.Contains(stderr, "writing through the gateway, not the database") {
				t.Fatalf("no routing line:\n%s", stderr)
			}
			reply = gjson.GetBytes(out, "reply").String()
			runID = gjson.GetBytes(out, "runId").String()
			if !strings.Contains(reply, "MOCK") {
				t.Fatalf("send: %s", out)
			}
			waitOK(t, bin, env, local, runID)
			if !hostHas(t, bin, g, reply) {
				t.Fatalf("the transcript lacks the reply %q", reply)
			}
			keys := g.EventIdempotencyKeys(t, "main")
			ours := "sessions-" + runID + "-0-turn-0"
			found := false
			for _, k := range keys {
				if strings.HasPrefix(k, "sessions-cli:") {
					t.Errorf("an event we wrote ourselves: %s", k)
				}
				if strings.Contains(k, ours) {
					found = true
				}
			}
			if !found {
				t.Errorf("no transcript event carries our gateway idempotency key %s (keys: %v)", ours, keys)
			}
			shown := false
			for _, f := range []string{g.GatewayLog, g.LogFile} {
				if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(ours)) {
					shown = true
				}
			}
			t.Logf("OpenClaw's logs name the run %s: %v", ours, shown)
		})
	}
}

// benchSend logs, side by side on the same gateway, the wall time of a
// `sessions --gateway URL send … --json` (start-up, handshake, the session
// looked up, the run recorded, the detached runner's turn, the reply) and of
// OpenClaw's own `openclaw agent --message … --json` through the gateway
// (Node's start-up, its handshake, the same agent turn), medians of 5; each
// run's announce step is waited for, untimed, so turns never queue.
func benchSend(t *testing.T, p, bin string, g *peertest.Gateway, env, gw []string) {
	t.Helper()
	const n = 5
	var ours, theirs []time.Duration
	target := []string{"--session-key", "agent:main:main"}
	if g.Version == "2026.1.30" {
		out, _ := sendRun(t, bin, env, append(gw, "list", "--json")...)
		target = []string{"--agent", "main", "--session-id", gjson.GetBytes(out, `sessions.#(key=="agent:main:main").sessionId`).String()}
	}
	for i := 0; i < n; i++ {
		start := time.Now()
		out, _ := sendRun(t, bin, env, append(gw, "send", "main", fmt.Sprintf("bench ours %d", i), "--json")...)
		ours = append(ours, time.Since(start))
		waitOK(t, bin, env, gw, gjson.GetBytes(out, "runId").String())
		start = time.Now()
		g.OpenClaw(t, p, append(append([]string{"agent"}, target...), "--message", fmt.Sprintf("bench openclaw %d", i), "--json")...)
		theirs = append(theirs, time.Since(start))
	}
	mo, mt := median(ours), median(theirs)
	t.Logf("OpenClaw %s, send through the gateway with the reply (median of %d): sessions %v, openclaw agent %v (%.2fx)", g.Version, n, mo, mt, float64(mt)/float64(mo))
}

// median is engine_gateway_interop_test.go's.

// sendRun runs the sessions binary with env; a failure fails the test.
var sendRun = peertest.RunSessions

// waitOK waits until the run (found with `runs` and the same selection)
// has ended ok.
func waitOK(t *testing.T, bin string, env, sel []string, runID string) {
	t.Helper()
	peertest.WaitRunOK(t, bin, env, sel, runID)
}

// hostHas: an assistant message with text is in agent:main:main's
// transcript on the gateway's host, read from its state dir.
func hostHas(t *testing.T, bin string, g *peertest.Gateway, text string) bool {
	t.Helper()
	out, _ := sendRun(t, bin, nil, "--state-dir", g.StateDir, "--config", g.ConfigPath, "history", "main", "--limit", "50", "--json")
	var h struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(out, &h); err != nil {
		t.Fatal(err)
	}
	for _, m := range h.Messages {
		if gjson.GetBytes(m, "role").String() != "assistant" {
			continue
		}
		for _, b := range gjson.GetBytes(m, "content").Array() {
			if b.Get("text").String() == text {
				return true
			}
		}
	}
	return false
}
