//go:build interop

package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropUIBesideGateway runs the real binary's terminal UI in tmux on
// the state dir of a real OpenClaw gateway (both eras) while the gateway
// writes: a session the gateway creates appears in the listing, a turn the
// gateway runs appears in the open transcript, a send through the UI gets
// its reply, Esc back, q exits 0 with the screen restored.
// Run: OPENCLAW_PEER=$PWD/../shared/peer/openclaw-peer go test -tags interop
// -run TestInteropUIBesideGateway -count=1 -v ./e2e/
func TestInteropUIBesideGateway(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	for _, version := range []string{"2026.1.30", "2026.9.6"} {
		t.Run(version, func(t *testing.T) {
			g := peertest.StartGateway(t, p, version)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			c, err := gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: g.Token})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			turn := func(key, msg string) {
				t.Helper()
				if fin, err := c.RunAgent(ctx, gateway.AgentParams{Message: msg, SessionKey: key}, nil); err != nil || fin.Status != "ok" {
					t.Fatalf("agent %s: %v %+v", key, err, fin)
				}
			}
			stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
			turn("agent:main:ui-interop", "seed "+stamp)

			root := t.TempDir()
			engine := filepath.Join(root, "engine.sh")
			if err := os.WriteFile(engine, []byte(testutil.EngineScript), 0o755); err != nil {
				t.Fatal(err)
			}
			// 2026.1.30: our runner with the fake engine; 2026.9.6 takes the
			// writes itself: the turn is the gateway's (auto), its mock LLM's reply
			eng := "SESSIONS_ENGINE=exec:sh '" + engine + "'"
			if version != "2026.1.30" {
				eng = "SESSIONS_ENGINE=auto"
			}
			env := relEnv(root, eng, "SESSIONS_RUNNER_EXE="+bin,
				"XDG_CONFIG_HOME="+filepath.Join(root, "xdg-config"), "XDG_STATE_HOME="+filepath.Join(root, "xdg-state"))
			u := startUI(t, 140, 36, env, bin, "--state-dir", g.StateDir, "--config", g.ConfigPath, "ui", "--all-agents")
			u.waitText("KEY", "ui-interop", "live")

			// a session the gateway creates appears
			turn("agent:main:ui-new", "new "+stamp)
			u.waitText("ui-new")

			// open the seeded one; a turn the gateway runs appears in it
			u.keys("/")
			u.text("ui-interop")
			u.keys("Enter")
			u.waitFor("the filtered listing", func(s string) bool {
				return strings.Contains(s, "filter: ui-interop") && !strings.Contains(s, "ui-new")
			})
			u.keys("Enter")
			u.waitText("transcript ·", "following", "seed "+stamp)
			turn("agent:main:ui-interop", "from the gateway "+stamp)
			u.waitText("from the gateway " + stamp)

			// send through the UI: the reply comes back (our fake engine, or
			// the gateway's own turn where the gateway takes the writes)
			u.keys("m")
			u.waitText("Message")
			u.text("hello from tmux " + stamp)
			u.keys("Enter")
			u.waitText("Send")
			u.keys("y")
			reply := regexp.MustCompile(`(pong: |MOCK[^\n]*)hello from tmux ` + stamp)
			u.waitFor("the reply", func(s string) bool { return reply.MatchString(s) })

			u.keys("Escape")
			u.waitText("transcript ·")
			u.keys("Escape")
			u.waitText("KEY", "filter: ui-interop")
			u.keys("q")
			u.waitText("EXIT=0")
			if alt := strings.TrimSpace(u.run("display-message", "-p", "-t", "0", "#{alternate_on}")); alt != "0" {
				t.Fatalf("the alternate screen is still on (%q)", alt)
			}
		})
	}
}
