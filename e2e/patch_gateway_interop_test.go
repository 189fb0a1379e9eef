//go:build interop

package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropPatchOverGateway: against REAL gateways of both versions,
// `sessions patch --gateway URL` is what OpenClaw then shows (9.6: `openclaw
// sessions --json`; 1.30, whose rows lack the label: its sessions.json);
// on 2026.9.6, a plain `sessions patch` on the state dir whose gateway is up
// goes through that gateway (said at debug level) and never writes the
// database itself.
func TestInteropPatchOverGateway(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	for _, version := range []string{"2026.1.30", "2026.9.6"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			g := peertest.StartGateway(t, p, version)
			const key = "agent:main:main"
			tokFile := g.Seeded(t, key).TokenFile
			empty := t.TempDir() // no local state needed over a named gateway
			out, _ := patchRun(t, bin, "--state-dir", empty, "--gateway", g.URL, "--gateway-token-file", tokFile, "patch", key, "--label", "over-gw", "--send-policy", "deny", "--json")
			if gjson.GetBytes(out, "ok").Bool() != true || gjson.GetBytes(out, "key").String() != key {
				t.Fatalf("patch: %s", out)
			}
			label, policy := openclawSees(t, p, g, key)
			if label != "over-gw" || policy != "deny" {
				t.Fatalf("OpenClaw sees label %q sendPolicy %q", label, policy)
			}
			// what the real gateway takes for a label: a patch over a named
			// gateway is held to the loosest rule (512) and the gateway
			// decides — 1.30 refuses past 64 UTF-16 units, 9.6 takes it.
			// The limit said before the version is known (Capabilities, a
			// spawn, this host's live gateway) is therefore 1.30's:
			// sessionwrite.GatewayLabelMax.
			long := "L" + strings.Repeat("x", 64) // 65 units
			code, stderr := patchExit(t, bin, "--state-dir", empty, "--gateway", g.URL, "--gateway-token-file", tokFile, "patch", key, "--label", long, "--json")
			label, _ = openclawSees(t, p, g, key)
			switch version {
			case "2026.1.30":
				if code == 0 || label != "over-gw" {
					t.Fatalf("1.30 took a 65-unit label (exit %d, label %q):\n%s", code, label, stderr)
				}
			default:
				if code != 0 || label != long {
					t.Fatalf("9.6 refused a 65-unit label (exit %d, label %q):\n%s", code, label, stderr)
				}
			}
			t.Logf("%s: a 65-unit label over the gateway: exit %d %s", version, code, strings.TrimSpace(stderr))
			if version != "2026.9.6" {
				return
			}
			// through this host's live gateway: held to GatewayLabelMax
			// before any call, nothing changed
			if code, stderr := patchExit(t, bin, "--state-dir", g.StateDir, "--config", g.ConfigPath, "patch", "main", "--label", "M"+strings.Repeat("x", 64)); code != 2 || !strings.Contains(stderr, "too long (max 64)") {
				t.Fatalf("a 65-unit label through the live gateway: exit %d\n%s", code, stderr)
			}
			if label, _ = openclawSees(t, p, g, key); label != long {
				t.Fatalf("OpenClaw sees label %q after a refused patch", label)
			}
			// the current era, no flag: through the live gateway
			out, stderr = patchRun(t, bin, "--state-dir", g.StateDir, "--config", g.ConfigPath, "--log-level", "debug", "patch", "main", "--label", "auto-routed", "--send-policy", "inherit", "--json")
			if !strings.Contains(stderr, "writing through the gateway, not the database") || !strings.Contains(stderr, g.URL) {
				t.Fatalf("no routing line:\n%s", stderr)
			}
			if strings.Contains(stderr, "store updated") {
				t.Fatalf("wrote the store itself:\n%s", stderr)
			}
			if gjson.GetBytes(out, "ok").Bool() != true {
				t.Fatalf("patch: %s", out)
			}
			label, policy = openclawSees(t, p, g, key)
			if label != "auto-routed" || policy != "" {
				t.Fatalf("OpenClaw sees label %q sendPolicy %q", label, policy)
			}
			// OpenClaw's own logs show the RPC when it logs it: its [ws] line
			// appears for slower calls only (seen once at 9.6, not always)
			shown := false
			for _, f := range []string{g.GatewayLog, g.LogFile} {
				if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte("sessions.patch")) {
					shown = true
				}
			}
			t.Logf("OpenClaw's logs show sessions.patch: %v", shown)
		})
	}
}

// patchRun runs the sessions binary; a failure fails the test.
func patchRun(t *testing.T, bin string, args ...string) ([]byte, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OPENCLAW_SESSION_KEY=", "OPENCLAW_STATE_DIR=", "OPENCLAW_GATEWAY_URL=", "OPENCLAW_GATEWAY_TOKEN=", "OPENCLAW_GATEWAY_PORT=", "SESSIONS_ENGINE=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sessions %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return out, stderr.String()
}

// patchExit runs the sessions binary and returns its exit code and stderr.
func patchExit(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OPENCLAW_SESSION_KEY=", "OPENCLAW_STATE_DIR=", "OPENCLAW_GATEWAY_URL=", "OPENCLAW_GATEWAY_TOKEN=", "OPENCLAW_GATEWAY_PORT=", "SESSIONS_ENGINE=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String()
	}
	t.Fatalf("sessions %s: %v", strings.Join(args, " "), err)
	return 0, ""
}

// openclawSees: the label and sendPolicy OpenClaw itself has for key —
// `openclaw sessions --json` on 9.6; the sessions.json file on 1.30 (its
// rows lack the label).
func openclawSees(t *testing.T, p string, g *peertest.Gateway, key string) (label, policy string) {
	t.Helper()
	if g.Version == "2026.1.30" {
		data, err := os.ReadFile(filepath.Join(g.StateDir, "agents", "main", "sessions", "sessions.json"))
		if err != nil {
			t.Fatal(err)
		}
		e := gjson.GetBytes(data, gjson.Escape(key))
		return e.Get("label").String(), e.Get("sendPolicy").String()
	}
	out := g.OpenClaw(t, p, "sessions", "--json")
	row := gjson.GetBytes(out, "sessions.#(key==\""+key+"\")")
	if !row.Exists() {
		t.Fatalf("openclaw sessions --json has no %s: %s", key, out)
	}
	// 9.6's CLI rows do not show sendPolicy: its gateway's sessions.list does
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: g.Token})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	page, err := c.ListAllSessions(ctx, gateway.ListParams{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range page.Sessions {
		if r.Key == key {
			policy = r.SendPolicy
		}
	}
	return row.Get("label").String(), policy
}
