package ops

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
	"github.com/openclaw/sessions/internal/testutil"
)

// readFixtures are the fixtures of both eras: OpenClaw 2026.1.30 (sessions.json and JSONL
// transcripts) and 2026.9.6 (the SQLite store).
var readFixtures = []string{"state-2026.1.30", "state-2026.9.6"}

// fixtureDir is testdata/name: read it, never write it.
func fixtureDir(t *testing.T, name string) string {
	return filepath.Join(testutil.Root(t), "testdata", name)
}

// copyReadFixture copies testdata/name into a temp dir (tests that may write,
// or that lock files into it).
func copyReadFixture(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	if err := testutil.CopyTree(fixtureDir(t, name), dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// newTestOps is the ops of an invocation on the state dir dir (no
// gateway unless tweak names one), its warnings in logs.
func newTestOps(t *testing.T, dir string, env map[string]string, tweak func(*Config)) (*Ops, *bytes.Buffer) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no contexts, no device files of the user's
	getenv := func(k string) string { return env[k] }
	var logs bytes.Buffer
	c := Config{StateDir: dir, Env: config.Env{Getenv: getenv, Home: "/nonexistent-home"}, Getenv: getenv,
		Now: func() time.Time { return time.UnixMilli(1795236254224) }, Log: log.New(&logs)}
	if tweak != nil {
		tweak(&c)
	}
	return New(c), &logs
}

// startGateway starts a fake gateway (protocol 3: 2026.1.30, 4: 2026.9.x)
// serving d, and the ops of an invocation that names it.
func startGateway(t *testing.T, protocol int, d gatewaytest.Data) (*Ops, *bytes.Buffer, *gatewaytest.Server) {
	t.Helper()
	s := gatewaytest.Start(protocol, "tok", d)
	t.Cleanup(s.Close)
	o, logs := newTestOps(t, t.TempDir(), map[string]string{"OPENCLAW_GATEWAY_TOKEN": "tok"}, func(c *Config) { c.Gateway.URL = s.URL() })
	return o, logs, s
}

func raws(js ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(js))
	for i, j := range js {
		out[i] = json.RawMessage(j)
	}
	return out
}

// chatMessages are n chat.history messages, one a second from ts 1000 s.
func chatMessages(n int) []json.RawMessage {
	out := make([]json.RawMessage, n)
	for i := range out {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		out[i] = json.RawMessage(`{"role":"` + role + `","content":[{"type":"text","text":"m` + strconv.Itoa(i) + `"}],"timestamp":` + strconv.Itoa(1_000_000+1000*i) + `}`)
	}
	return out
}
