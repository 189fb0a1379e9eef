//go:build interop

package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/backend/gatewayhost"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropGatewayAs: on real gateways of both versions, config.get
// answers the peer's token with the host's config, and --as over the
// gateway gives the same rows, sessions and refusals as --as on the local
// reading of the same state (the peer's config: agents main and ops,
// agent-to-agent off). No secret of the config reaches the output.
func TestInteropGatewayAs(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	cfgHome := t.TempDir()
	for _, version := range []string{"2026.1.30", "2026.9.6"} {
		t.Run(version, func(t *testing.T) {
			g := peertest.StartGateway(t, p, version)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			c, err := gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: g.Token})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, turn := range []struct{ key, msg string }{
				{"agent:main:main", "first"}, {"agent:ops:main", "second"}, {"agent:main:interop-as", "third"},
			} {
				if fin, err := c.RunAgent(ctx, gateway.AgentParams{Message: turn.msg, SessionKey: turn.key}, nil); err != nil || fin.Status != "ok" {
					t.Fatalf("agent %s: %v %+v", turn.key, err, fin)
				}
			}

			// config.get with the peer's token, and the requester resolved
			// against it as against the local config.
			var snap struct {
				Valid  bool           `json:"valid"`
				Config map[string]any `json:"config"`
			}
			if err := c.Call(ctx, "config.get", map[string]any{}, &snap); err != nil || !snap.Valid || snap.Config["agents"] == nil {
				t.Fatalf("config.get: %v valid=%v agents=%v", err, snap.Valid, snap.Config["agents"] != nil)
			}
			acc, err := gatewayhost.Access(ctx, c, g.URL, gatewayhost.AsInput{As: "agent:ops:main"})
			if err != nil || acc.Req.Agent != "ops" || acc.Default != "main" || acc.A2A.Enabled {
				t.Fatalf("gatewayhost.Access: %v %+v", err, acc)
			}

			env := []string{"OPENCLAW_GATEWAY_TOKEN=" + g.Token, "XDG_CONFIG_HOME=" + cfgHome}
			local := []string{"--state-dir", g.StateDir}
			remote := []string{"--gateway", g.URL}
			type row struct {
				Key     string `json:"key"`
				AgentID string `json:"agentId"`
				SID     string `json:"sessionId"`
			}
			keysOf := func(out []byte) []string {
				var l struct{ Sessions []row }
				decodeJSON(t, out, &l)
				var ks []string
				for _, r := range l.Sessions {
					k := r.Key
					if !strings.HasPrefix(k, "agent:") { // shown relative to the requester's agent
						k = "agent:" + r.AgentID + ":" + k
					}
					ks = append(ks, k+" "+r.SID)
				}
				slices.Sort(ks)
				return ks
			}
			for _, as := range []string{"agent:ops:main", "agent:main:main"} {
				args := []string{"--as", as, "list", "--limit", "all", "--json"}
				l := keysOf(runSessions2(t, bin, env, append(local, args...)...))
				o := keysOf(runSessions2(t, bin, env, append(remote, args...)...))
				if !slices.Equal(l, o) || len(l) == 0 {
					t.Fatalf("--as %s list differs:\nlocal   %q\ngateway %q", as, l, o)
				}
				other := "agent:main:main "
				if as == "agent:main:main" {
					other = "agent:ops:main "
				}
				if slices.ContainsFunc(o, func(k string) bool { return strings.HasPrefix(k, other) }) {
					t.Fatalf("--as %s lists %s although agent-to-agent is off: %q", as, other, o)
				}
			}

			// history: the requester's own session the same, another agent's
			// refused the same way (exit 3, OpenClaw's message).
			var lh, oh struct {
				SessionKey string            `json:"sessionKey"`
				SessionID  string            `json:"sessionId"`
				Messages   []json.RawMessage `json:"messages"`
			}
			decodeJSON(t, runSessions2(t, bin, env, append(local, "--as", "agent:ops:main", "history", "agent:ops:main", "--json")...), &lh)
			decodeJSON(t, runSessions2(t, bin, env, append(remote, "--as", "agent:ops:main", "history", "agent:ops:main", "--json")...), &oh)
			if lh.SessionID != oh.SessionID || len(lh.Messages) != len(oh.Messages) || len(lh.Messages) < 2 {
				t.Fatalf("--as history differs: local %s %d, gateway %s %d", lh.SessionID, len(lh.Messages), oh.SessionID, len(oh.Messages))
			}
			for _, where := range [][]string{local, remote} {
				code, out, stderr := runCode(bin, env, append(where, "--as", "agent:ops:main", "history", "agent:main:main", "--json")...)
				// a session of an agent the requester may not see is one that does not exist
				if code != 4 || !strings.Contains(string(out), `"error": "No session found: agent:main:main"`) {
					t.Fatalf("%v: --as ops history of main: exit %d\n%s%s", where, code, out, stderr)
				}
			}

			// Never a secret of the config, even at --log-level debug.
			code, out, stderr := runCode(bin, env, append(remote, "--log-level", "debug", "--as", "agent:main:main", "list", "--json")...)
			if code != 0 || strings.Contains(string(out)+stderr, g.Token) || !strings.Contains(stderr, "checked against its config") {
				t.Fatalf("debug run: exit %d, secret shown or no debug line\n%s", code, stderr)
			}
		})
	}
}

// runCode runs the binary and returns its exit code, stdout and stderr.
func runCode(bin string, env []string, args ...string) (int, []byte, string) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OPENCLAW_SESSION_KEY=", "OPENCLAW_STATE_DIR=", "OPENCLAW_GATEWAY_URL=", "OPENCLAW_GATEWAY_TOKEN=")
	cmd.Env = append(cmd.Env, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out, stderr.String()
	}
	if err != nil {
		return -1, out, err.Error()
	}
	return 0, out, stderr.String()
}
