//go:build interop

package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropGatewayRead: on real gateways of both versions, list, history
// and show over the gateway equal the local reading of the same state
// (keys, sessionIds, message order); --context all over both merges their
// rows and reports a third, stopped one as an error (exit 1).
func TestInteropGatewayRead(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	cfg := t.TempDir()
	var gws []*peertest.Gateway
	for _, version := range []string{"2026.1.30", "2026.9.6"} {
		g := peertest.StartGateway(t, p, version)
		gws = append(gws, g)
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			c, err := gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: g.Token})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, turn := range []struct{ key, msg string }{
				{"agent:main:main", "first"}, {"agent:main:interop-read", "second"}, {"agent:main:main", "third"},
			} {
				if fin, err := c.RunAgent(ctx, gateway.AgentParams{Message: turn.msg, SessionKey: turn.key}, nil); err != nil || fin.Status != "ok" {
					t.Fatalf("agent %s: %v %+v", turn.key, err, fin)
				}
			}
			remote := []string{"--gateway", g.URL}
			env := []string{"OPENCLAW_GATEWAY_TOKEN=" + g.Token, "XDG_CONFIG_HOME=" + cfg}
			run := func(args ...string) []byte { return runSessions2(t, bin, env, args...) }

			// list: the same keys and sessionIds.
			type row struct {
				Key       string `json:"key"`
				SessionID string `json:"sessionId"`
			}
			var local, over struct{ Sessions []row }
			decodeJSON(t, run(append([]string{"--state-dir", g.StateDir}, "list", "--all-agents", "--limit", "all", "--json")...), &local)
			decodeJSON(t, run(append(remote, "list", "--limit", "all", "--json")...), &over)
			norm := func(rs []row) []string {
				var out []string
				for _, r := range rs {
					k := r.Key
					if k == "main" {
						k = "agent:main:main"
					}
					out = append(out, k+" "+r.SessionID)
				}
				slices.Sort(out)
				return out
			}
			if l, o := norm(local.Sessions), norm(over.Sessions); !slices.Equal(l, o) || len(l) < 2 {
				t.Fatalf("list differs:\nlocal   %q\ngateway %q", l, o)
			}

			// history: the same messages in the same order (role and time;
			// 2026.9 normalizes message bodies for display).
			for _, key := range []string{"agent:main:main", "agent:main:interop-read"} {
				type msg struct {
					Role      string  `json:"role"`
					Timestamp float64 `json:"timestamp"`
				}
				var lh, oh struct {
					SessionID string `json:"sessionId"`
					Messages  []msg  `json:"messages"`
				}
				decodeJSON(t, run("--state-dir", g.StateDir, "history", key, "--json"), &lh)
				decodeJSON(t, run(append(remote, "history", key, "--json")...), &oh)
				seq := func(ms []msg) []string {
					var out []string
					for _, m := range ms {
						out = append(out, fmt.Sprintf("%s@%.0f", m.Role, m.Timestamp))
					}
					return out
				}
				if lh.SessionID != oh.SessionID || !slices.Equal(seq(lh.Messages), seq(oh.Messages)) || len(lh.Messages) < 2 {
					t.Fatalf("history %s differs:\nlocal   %s %q\ngateway %s %q", key, lh.SessionID, seq(lh.Messages), oh.SessionID, seq(oh.Messages))
				}

				// history --around: the same page around the same message,
				// named by its time (both versions) and, where the gateway
				// gives message ids (2026.9's __openclaw.id), by the id a
				// search on the host gives.
				at := time.UnixMilli(int64(lh.Messages[1].Timestamp)).UTC().Format(time.RFC3339Nano)
				type aroundPage struct {
					AroundIndex int   `json:"aroundIndex"`
					Messages    []msg `json:"messages"`
				}
				var la, oa aroundPage
				decodeJSON(t, run("--state-dir", g.StateDir, "history", key, "--around", at, "--limit", "3", "--json"), &la)
				decodeJSON(t, run(append(remote, "history", key, "--around", at, "--limit", "3", "--json")...), &oa)
				if !slices.Equal(seq(la.Messages), seq(oa.Messages)) || la.AroundIndex != oa.AroundIndex || seq(la.Messages)[la.AroundIndex] != seq(lh.Messages)[1] {
					t.Fatalf("history %s --around %s differs:\nlocal   %d %q\ngateway %d %q", key, at, la.AroundIndex, seq(la.Messages), oa.AroundIndex, seq(oa.Messages))
				}
				if version == "2026.9.6" && key == "agent:main:main" {
					var hits struct {
						Hits []struct {
							ID string `json:"id"`
						} `json:"hits"`
					}
					decodeJSON(t, run("--state-dir", g.StateDir, "search", "third", "--key", key, "--json"), &hits)
					if len(hits.Hits) == 0 {
						t.Fatal("search third: no hit")
					}
					var la, oa aroundPage
					decodeJSON(t, run("--state-dir", g.StateDir, "history", key, "--around", hits.Hits[0].ID, "--limit", "3", "--json"), &la)
					decodeJSON(t, run(append(remote, "history", key, "--around", hits.Hits[0].ID, "--limit", "3", "--json")...), &oa)
					if !slices.Equal(seq(la.Messages), seq(oa.Messages)) || la.AroundIndex != oa.AroundIndex {
						t.Fatalf("history --around %s differs:\nlocal   %d %q\ngateway %d %q", hits.Hits[0].ID, la.AroundIndex, seq(la.Messages), oa.AroundIndex, seq(oa.Messages))
					}
				}

				// show: same session, same transcript size.
				type shown struct {
					SessionID  string `json:"sessionId"`
					Transcript struct {
						Messages int `json:"messages"`
					} `json:"transcript"`
				}
				var ls, rs shown
				decodeJSON(t, run("--state-dir", g.StateDir, "show", key, "--json"), &ls)
				decodeJSON(t, run(append(remote, "show", key, "--json")...), &rs)
				if ls != rs {
					t.Fatalf("show %s differs: local %+v gateway %+v", key, ls, rs)
				}
			}
		})
	}
	if len(gws) != 2 || t.Failed() {
		return
	}
	// A fleet: both gateways and a stopped third one.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stopped := "ws://" + ln.Addr().String()
	ln.Close()
	env := []string{"XDG_CONFIG_HOME=" + cfg, "TOK130=" + gws[0].Token, "TOK96=" + gws[1].Token, "TOKX=x"}
	runSessions2(t, bin, env, "context", "add", "v130", "--gateway", gws[0].URL, "--token-env", "TOK130")
	runSessions2(t, bin, env, "context", "add", "v96", "--gateway", gws[1].URL, "--token-env", "TOK96")
	runSessions2(t, bin, env, "context", "add", "stopped", "--gateway", stopped, "--token-env", "TOKX")
	cmd := exec.Command(bin, "--context", "all", "list", "--limit", "all", "--json")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("--context all with a stopped gateway: exit %v, want 1\n%s", err, out)
	}
	var fleet struct {
		Count    int `json:"count"`
		Sessions []struct {
			Context string `json:"context"`
		} `json:"sessions"`
		Errors []struct{ Context, Error string } `json:"errors"`
	}
	decodeJSON(t, out, &fleet)
	per := map[string]int{}
	for _, s := range fleet.Sessions {
		per[s.Context]++
	}
	if per["v130"] < 2 || per["v96"] < 2 || len(fleet.Errors) != 1 || fleet.Errors[0].Context != "stopped" || !strings.Contains(fleet.Errors[0].Error, "unreachable") {
		t.Fatalf("fleet: rows per context %v, errors %+v", per, fleet.Errors)
	}

	// show over the same fleet: each live host's main session (as that
	// host's own state has it), the stopped one in errors, exit 1.
	cmd = exec.Command(bin, "--context", "all", "show", "agent:main:main", "--json")
	cmd.Env = append(os.Environ(), env...)
	out, err = cmd.Output()
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("show --context all with a stopped gateway: exit %v, want 1\n%s", err, out)
	}
	var shown struct {
		Sessions []struct {
			Context, SessionID string
		} `json:"sessions"`
		Errors []struct{ Context string } `json:"errors"`
	}
	decodeJSON(t, out, &shown)
	got := map[string]string{}
	for _, s := range shown.Sessions {
		got[s.Context] = s.SessionID
	}
	for i, name := range []string{"v130", "v96"} {
		var local struct{ SessionID string }
		decodeJSON(t, runSessions2(t, bin, env, "--state-dir", gws[i].StateDir, "show", "agent:main:main", "--json"), &local)
		if got[name] == "" || got[name] != local.SessionID {
			t.Fatalf("show over the fleet: %s has %q, its state %q (all: %s)", name, got[name], local.SessionID, out)
		}
	}
	if len(shown.Errors) != 1 || shown.Errors[0].Context != "stopped" {
		t.Fatalf("show over the fleet: errors %+v", shown.Errors)
	}
}

func runSessions2(t *testing.T, bin string, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OPENCLAW_SESSION_KEY=", "OPENCLAW_STATE_DIR=", "OPENCLAW_GATEWAY_URL=", "OPENCLAW_GATEWAY_TOKEN=")
	cmd.Env = append(cmd.Env, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sessions %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return out
}

func decodeJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
}
