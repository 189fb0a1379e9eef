//go:build interop

package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropExport: on real gateways of both versions, export over the
// gateway (chat.history) holds the same messages, in the same order, as the
// export of the gateway's own state dir read locally; the HTML page over
// the gateway has every message.
func TestInteropExport(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	cfg := t.TempDir()
	for _, version := range []string{"2026.1.30", "2026.9.6"} {
		g := peertest.StartGateway(t, p, version)
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			c, err := gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: g.Token})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, msg := range []string{"first", "second", "third"} {
				if fin, err := c.RunAgent(ctx, gateway.AgentParams{Message: msg, SessionKey: "agent:main:main"}, nil); err != nil || fin.Status != "ok" {
					t.Fatalf("agent: %v %+v", err, fin)
				}
			}
			env := []string{"OPENCLAW_GATEWAY_TOKEN=" + g.Token, "XDG_CONFIG_HOME=" + cfg}
			run := func(args ...string) []byte { return runSessions2(t, bin, env, args...) }
			type msg struct {
				Role      string  `json:"role"`
				Timestamp float64 `json:"timestamp"`
			}
			type doc struct {
				Session struct {
					SessionID string `json:"sessionId"`
					Where     string `json:"where"`
				} `json:"session"`
				Messages []msg `json:"messages"`
			}
			var local, over doc
			decodeJSON(t, run("--state-dir", g.StateDir, "export", "main", "--format", "json"), &local)
			decodeJSON(t, run("--gateway", g.URL, "export", "main", "--format", "json"), &over)
			seq := func(ms []msg) []string {
				var out []string
				for _, m := range ms {
					out = append(out, fmt.Sprintf("%s@%.0f", m.Role, m.Timestamp))
				}
				return out
			}
			if local.Session.SessionID != over.Session.SessionID || !slices.Equal(seq(local.Messages), seq(over.Messages)) || len(local.Messages) < 6 {
				t.Fatalf("export differs:\nlocal   %s %q\ngateway %s %q", local.Session.SessionID, seq(local.Messages), over.Session.SessionID, seq(over.Messages))
			}
			if !strings.HasPrefix(over.Session.Where, "gateway ") {
				t.Errorf("over the gateway: where %q", over.Session.Where)
			}
			page := string(run("--gateway", g.URL, "export", "main", "--format", "html"))
			for i := range over.Messages {
				if !strings.Contains(page, fmt.Sprintf(`id="m%d"`, i+1)) {
					t.Errorf("html over the gateway: message %d missing", i+1)
				}
			}
			if strings.Contains(page, `id="window"`) {
				t.Error("html over the gateway states a window that did not cut the conversation")
			}
		})
	}
}
