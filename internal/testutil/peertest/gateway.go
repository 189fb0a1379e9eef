package peertest

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	_ "modernc.org/sqlite" // EventIdempotencyKeys

	"github.com/openclaw/sessions/internal/gateway"
)

// Gateway is a real OpenClaw gateway the peer started (`openclaw-peer
// gateway start`): its URL and shared token, and where its state lives.
type Gateway struct {
	URL        string `json:"url"`
	Token      string `json:"token"`
	Version    string `json:"version"`
	Home       string `json:"home"`
	StateDir   string `json:"stateDir"`
	ConfigPath string `json:"configPath"`
	GatewayLog string `json:"gatewayLog"`
	LogFile    string `json:"logFile"`
	Port       int    `json:"port"`
	GatewayPID int    `json:"gatewayPid"`
}

var versionInstalls sync.Map // version → *versionInstall

type versionInstall struct {
	once sync.Once
	skip string
	err  error
}

// InstallVersion runs `openclaw-peer install --version V` once per test
// binary (a no-op when installed); the test skips with one line when the
// peer cannot provide that version.
func InstallVersion(t testing.TB, p, version string) {
	t.Helper()
	v, _ := versionInstalls.LoadOrStore(version, &versionInstall{})
	vi := v.(*versionInstall)
	vi.once.Do(func() {
		out, err := exec.Command(p, "install", "--version", version).CombinedOutput()
		var ee *exec.ExitError
		unavailable := errors.As(err, &ee) && ee.ExitCode() == exitUnavailable
		if unavailable && installedPerStatus(p, "--version", version) {
			err = nil // installed; its check timed out on a loaded machine
		}
		if err != nil && unavailable {
			vi.skip = fmt.Sprintf("OpenClaw %s peer unavailable (openclaw-peer install exited %d): %s", version, exitUnavailable, LastLine(string(out)))
		} else if err != nil {
			vi.err = fmt.Errorf("openclaw-peer install --version %s: %v\n%s", version, err, out)
		}
	})
	if vi.skip != "" {
		t.Skip(vi.skip)
	}
	if vi.err != nil {
		t.Fatal(vi.err)
	}
}

// StartGateway starts a real gateway of version (2026.1.30 or 2026.9.6)
// with token auth and the mock LLM, home in a fresh temp dir, and stops it
// when the test ends. extra are more `gateway start` flags (e.g. --state).
func StartGateway(t testing.TB, p, version string, extra ...string) *Gateway {
	t.Helper()
	InstallVersion(t, p, version)
	home := t.TempDir()
	args := append([]string{"gateway", "start", "--version", version, "--home", home, "--max-seconds", "1800"}, extra...)
	cmd := exec.Command(p, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == exitUnavailable {
		t.Skipf("openclaw-peer gateway start: %s", LastLine(stderr.String()))
	}
	// Registered after TempDir: runs first, before the home is removed.
	t.Cleanup(func() { _ = exec.Command(p, "gateway", "stop", "--home", home).Run() })
	if err != nil {
		t.Fatalf("openclaw-peer gateway start --version %s: %v\n%s%s", version, err, out, stderr.String())
	}
	var g Gateway
	if err := json.Unmarshal(out, &g); err != nil || g.URL == "" || g.Token == "" {
		t.Fatalf("openclaw-peer gateway start: unexpected output %q (%v)", out, err)
	}
	return &g
}

// OpenClaw runs the real `openclaw ARGS` of the gateway's version on its
// state and config, and returns stdout (stderr is part of a failure).
func (g *Gateway) OpenClaw(t testing.TB, p string, args ...string) []byte {
	t.Helper()
	full := append([]string{"run", "--version", g.Version, "--home", g.Home + "/cli-home", "--state", g.StateDir, "--config", g.ConfigPath, "--"}, args...)
	cmd := exec.Command(p, full...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("openclaw %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// Client is what a `sessions` test needs to work through g: the sessions
// keys seeded on it (one real agent turn each, so they exist on both
// versions), its token in a 0600 file, the global flags naming g, and an
// environment whose XDG dirs (contexts, device key, gateway run homes) are
// the test's own.
type Client struct {
	TokenFile string
	Flags     []string // --gateway URL --gateway-token-file FILE
	Env       []string // XDG_STATE_HOME, XDG_CONFIG_HOME under a temp dir
}

// Seeded makes one agent turn on each of keys through g (bounded by 5
// minutes) and returns the client side of a test that works through it.
func (g *Gateway) Seeded(t testing.TB, keys ...string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: g.Token})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, k := range keys {
		if _, err := c.RunAgent(ctx, gateway.AgentParams{Message: "seed " + k, SessionKey: k}, nil); err != nil {
			t.Fatalf("seed %s: %v", k, err)
		}
	}
	tmp := t.TempDir()
	tok := filepath.Join(tmp, "token")
	if err := os.WriteFile(tok, []byte(g.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return &Client{
		TokenFile: tok,
		Flags:     []string{"--gateway", g.URL, "--gateway-token-file", tok},
		Env:       []string{"XDG_STATE_HOME=" + filepath.Join(tmp, "xdg-state"), "XDG_CONFIG_HOME=" + filepath.Join(tmp, "xdg-config")},
	}
}

// RunSessions runs `BIN ARGS...` (no --state-dir added) and returns its
// stdout and stderr; a failure fails the test with both. Like Sessions it
// inherits no requester, state dir, gateway, engine or delivery setting
// from the environment; env (K=V, applied last) sets what the test wants.
func RunSessions(t *testing.T, bin string, env []string, args ...string) ([]byte, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OPENCLAW_SESSION_KEY=", "OPENCLAW_STATE_DIR=", "OPENCLAW_GATEWAY_URL=", "OPENCLAW_GATEWAY_TOKEN=", "OPENCLAW_GATEWAY_PORT=", "SESSIONS_ENGINE=", "SESSIONS_DELIVER=")
	cmd.Env = append(cmd.Env, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sessions %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return out, stderr.String()
}

// WaitRunOK polls `sessions SEL... runs --json` until runID has ended ok
// (at most 2 minutes) and returns its record; an error or timeout status
// fails the test.
func WaitRunOK(t *testing.T, bin string, env, sel []string, runID string) string {
	t.Helper()
	for i := 0; i < 600; i++ {
		out, _ := RunSessions(t, bin, env, append(sel, "runs", "--json")...)
		r := gjson.GetBytes(out, "runs.#(runId==\""+runID+"\")")
		switch r.Get("status").String() {
		case "ok":
			return r.Raw
		case "error", "timeout":
			t.Fatalf("run %s: %s", runID, r.Raw)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("run %s did not end", runID)
	return ""
}

// EventIdempotencyKeys are the message idempotency keys of the transcript
// events in agent's 2026.8+ database on g's state (read-only): who wrote
// an event (the gateway's own turn, or sessions' "sessions-cli:" writes).
func (g *Gateway) EventIdempotencyKeys(t testing.TB, agent string) []string {
	t.Helper()
	db := filepath.Join(g.StateDir, "agents", agent, "agent", "openclaw-agent.sqlite")
	d, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.Query("SELECT message_idempotency_key FROM transcript_event_identities WHERE message_idempotency_key IS NOT NULL")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
