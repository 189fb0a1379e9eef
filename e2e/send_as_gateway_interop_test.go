//go:build interop

package e2e_test

import (
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropSendAsOverGateway: against REAL gateways of both versions,
// `sessions --gateway URL --as REQUESTER send main …` checks the requester
// against the host's config (config.get, allowed with the gateway token),
// records it in the run, and the reply ping-pong runs as gateway turns on
// the requester's session: the requester's transcript on that host (read
// back over the gateway with history) has the ping-pong reply the run
// recorded.
func TestInteropSendAsOverGateway(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	for _, version := range []string{"2026.1.30", "2026.9.6"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			g := peertest.StartGateway(t, p, version)
			const target, requester = "agent:main:main", "agent:main:cron:as-requester"
			cl := g.Seeded(t, target, requester)
			env, gw := cl.Env, cl.Flags

			out, _ := sendRun(t, bin, env, append(gw, "--as", requester, "send", "main", "interop as a requester", "--json")...)
			if gjson.GetBytes(out, "status").String() != "ok" {
				t.Fatalf("send: %s", out)
			}
			runID := gjson.GetBytes(out, "runId").String()
			waitOK(t, bin, env, gw, runID)
			// the announce step ends the run's work; wait for it
			var rec gjson.Result
			// until the announce is delivered, for as long as a loaded
			// machine takes (each round is a CLI run, seconds under load)
			for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); {
				out, _ = sendRun(t, bin, env, append(gw, "--as", requester, "runs", "--json")...)
				rec = gjson.GetBytes(out, `runs.#(runId=="`+runID+`")`)
				if rec.Get("delivery.status").String() != "pending" {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if rec.Get("requester.key").String() != requester || rec.Get("settings.from").String() == "" {
				t.Fatalf("run record without the requester or the host's settings: %s", rec.Raw)
			}
			reply := rec.Get(`steps.#(session=="` + requester + `").reply`).String()
			if rec.Get(`steps.#(session=="`+requester+`").status`).String() != "ok" || reply == "" {
				t.Fatalf("no ping-pong turn on the requester: %s", rec.Raw)
			}
			t.Logf("OpenClaw %s: steps %s, settings %s", version, rec.Get(`steps.#.name`).Raw, rec.Get("settings").Raw)
			hist, _ := sendRun(t, bin, env, append(gw, "history", requester, "--limit", "50", "--json")...)
			found := false
			for _, m := range gjson.GetBytes(hist, "messages").Array() {
				if m.Get("role").String() != "assistant" {
					continue
				}
				for _, b := range m.Get("content").Array() {
					if b.Get("text").String() == reply {
						found = true
					}
				}
			}
			if !found {
				t.Fatalf("the requester's transcript lacks the ping-pong reply %q:\n%s", reply, hist)
			}
		})
	}
}
