//go:build interop

package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropWatchGateway: `sessions watch --json` through real gateways
// of both versions sees an agent turn made through the gateway as a
// message event of its session, and on 2026.9.6 (which announces
// sessions.changed to a subscriber) a label patched by another client as
// an updated event naming the field.
func TestInteropWatchGateway(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	for _, version := range []string{"2026.1.30", "2026.9.6"} {
		t.Run(version, func(t *testing.T) {
			g := peertest.StartGateway(t, p, version)
			const key = "agent:main:watch-interop"
			cl := g.Seeded(t, key)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()

			cmd := exec.CommandContext(ctx, bin, append(append([]string{}, cl.Flags...), "watch", "--json")...)
			cmd.Env = append(os.Environ(), "OPENCLAW_SESSION_KEY=", "OPENCLAW_STATE_DIR=", "OPENCLAW_GATEWAY_URL=", "OPENCLAW_GATEWAY_TOKEN=", "SESSIONS_ENGINE=")
			cmd.Env = append(cmd.Env, cl.Env...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			type event struct {
				Kind    string   `json:"kind"`
				Key     string   `json:"key"`
				Fields  []string `json:"fields"`
				Message *struct {
					Role string `json:"role"`
					Text string `json:"text"`
				} `json:"message"`
			}
			events := make(chan event, 64)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					var ev event
					if json.Unmarshal(sc.Bytes(), &ev) == nil {
						events <- ev
					}
				}
				close(events)
			}()

			c, err := gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: g.Token})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// until an event shows: a turn made before the feed subscribed
			// is not one it can see, so a few turns, one at a time
			seen := func(match func(event) bool, act func(n int)) bool {
				for n := 1; n <= 4; n++ {
					act(n)
					// a 9.6 turn on a loaded machine takes well over 15 s
					wait := time.After(60 * time.Second)
					for {
						select {
						case ev, ok := <-events:
							if !ok {
								t.Fatalf("watch ended: %s", stderr.String())
							}
							if match(ev) {
								return true
							}
							continue
						case <-wait:
						}
						break
					}
				}
				return false
			}
			if !seen(func(ev event) bool {
				return ev.Kind == "message" && ev.Key == key && ev.Message != nil && ev.Message.Role == "assistant"
			}, func(n int) {
				if fin, err := c.RunAgent(ctx, gateway.AgentParams{Message: fmt.Sprintf("watched %d", n), SessionKey: key}, nil); err != nil || fin.Status != "ok" {
					t.Fatalf("agent turn: %v %+v", err, fin)
				}
			}) {
				t.Fatalf("no message event of %s from watch through %s\nstderr: %s", key, version, stderr.String())
			}
			if version == "2026.1.30" {
				return // 1.30 announces no change made by another client (re-listed on its keepalive tick)
			}
			if !seen(func(ev event) bool {
				return ev.Kind == "updated" && ev.Key == key && strings.Contains(strings.Join(ev.Fields, ","), "label")
			}, func(n int) {
				peertest.RunSessions(t, bin, cl.Env, append(append([]string{}, cl.Flags...), "patch", key, "--label", fmt.Sprintf("watched-%d", n))...)
			}) {
				t.Fatalf("no updated event naming label from watch through %s\nstderr: %s", version, stderr.String())
			}
		})
	}
}
