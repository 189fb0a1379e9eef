package ops_test

// The conformance suite: one set of tests over the operations, run against
// every implementation of where sessions live (restic's backend test suite
// is the model). Each TestConformanceX runs one subtest per implementation:
//
//   - json: the OpenClaw 2026.1.30 demo state (sessions.json + JSONL);
//   - sqlite: the OpenClaw 2026.9.6 fixture (the per-agent SQLite store);
//   - gateway-1.30, gateway-9.6: the in-process fake gateway speaking each
//     version's protocol, serving the sessions of the json and the sqlite
//     fixture;
//   - under the interop build tag, the real 1.30 and 9.6 gateways of the
//     OpenClaw peer (conformance_interop_test.go).
//
// An operation an implementation refuses is refused with the same exit code
// and the same message shape everywhere.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
)

// impl is one implementation under test: how to get an Ops working on it,
// freshly (writes in one test never reach another).
type impl struct {
	name string
	// open returns the operations of a fresh copy of the implementation.
	open func(t *testing.T) *fixture
}

// fixture is one fresh implementation and what the suite may expect of it.
type fixture struct {
	ops *ops.Ops
	// main is the key of the default agent's main session as the
	// implementation shows it ("main" locally, where the display key is
	// the short one; the whole key over a gateway).
	main string
	// remote: the sessions are reached through a gateway.
	remote bool
	// gw is the fake gateway, when there is one (nil for a real one).
	gw *gatewaytest.Server
}

// implementations are the implementations every conformance test runs on;
// the interop build adds the real gateways.
var implementations = []impl{
	{"json", func(t *testing.T) *fixture { return openLocal(t, "state-2026.1.30") }},
	{"sqlite", func(t *testing.T) *fixture { return openLocal(t, "state-2026.9.6") }},
	{"gateway-1.30", func(t *testing.T) *fixture { return openFake(t, 3, "state-2026.1.30") }},
	{"gateway-9.6", func(t *testing.T) *fixture { return openFake(t, 4, "state-2026.9.6") }},
}

// each runs fn on every implementation, each as its own subtest.
func each(t *testing.T, fn func(t *testing.T, fx *fixture)) {
	for _, im := range implementations {
		t.Run(im.name, func(t *testing.T) { fn(t, im.open(t)) })
	}
}

// isolate keeps the test's user dirs (contexts, device identity, run
// homes) inside tmp and returns the environment the ops read.
func isolate(t *testing.T, tmp string, extra map[string]string) map[string]string {
	t.Helper()
	env := map[string]string{
		"HOME": tmp, "XDG_CONFIG_HOME": filepath.Join(tmp, "xdg-config"),
		"XDG_STATE_HOME": filepath.Join(tmp, "xdg-state"), "XDG_CACHE_HOME": filepath.Join(tmp, "xdg-cache"),
		"SESSIONS_ENGINE": "provider",
	}
	for k, v := range extra {
		env[k] = v
	}
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"} {
		t.Setenv(k, env[k])
	}
	for _, k := range []string{"OPENCLAW_STATE_DIR", "OPENCLAW_SESSION_KEY", "OPENCLAW_GATEWAY_URL", "OPENCLAW_GATEWAY_TOKEN", "OPENCLAW_GATEWAY_PASSWORD"} {
		t.Setenv(k, "")
	}
	return env
}

func newOps(tmp string, env map[string]string, c ops.Config) *ops.Ops {
	getenv := func(k string) string { return env[k] }
	c.Env = config.Env{Getenv: getenv, Home: tmp}
	c.Getenv = getenv
	return ops.New(c)
}

// copyFixture copies testdata/NAME into a fresh directory.
func copyFixture(t *testing.T, name string) (tmp, dir string) {
	t.Helper()
	tmp = t.TempDir()
	dir = filepath.Join(tmp, "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", name), dir); err != nil {
		t.Fatal(err)
	}
	return tmp, dir
}

func openLocal(t *testing.T, name string) *fixture {
	tmp, dir := copyFixture(t, name)
	env := isolate(t, tmp, nil)
	return &fixture{ops: newOps(tmp, env, ops.Config{StateDir: dir}), main: "main"}
}

// openFake starts a fake gateway of protocol serving the sessions of the
// fixture state name: its sessions.list rows and chat.history messages are
// what this host reads locally from that state.
func openFake(t *testing.T, protocol int, name string) *fixture {
	tmp, dir := copyFixture(t, name)
	env := isolate(t, tmp, nil)
	d := gatewayData(t, tmp, env, dir)
	srv := gatewaytest.Start(protocol, "tok", d)
	srv.W = &gatewaytest.Writes{}
	t.Cleanup(srv.Close)
	tokenFile := filepath.Join(tmp, "gw.token")
	if err := os.WriteFile(tokenFile, []byte("tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := newOps(tmp, env, ops.Config{Gateway: srv.URL(), GatewayTokenFile: tokenFile})
	return &fixture{ops: o, main: "agent:main:main", remote: true, gw: srv}
}

// gatewayData is what a gateway over the state dir would serve: every
// session as a sessions.list row (newest first) and its transcript as
// chat.history.
func gatewayData(t *testing.T, tmp string, env map[string]string, dir string) gatewaytest.Data {
	t.Helper()
	local := newOps(tmp, env, ops.Config{StateDir: dir})
	res, err := local.List(context.Background(), ops.ListQuery{Limit: -1, AllAgents: true})
	if err != nil {
		t.Fatal(err)
	}
	lr := &backend.Local{State: local.State, Warn: func(string) {}}
	d := gatewaytest.Data{History: map[string][]json.RawMessage{}}
	for _, r := range res.Sessions {
		d.Sessions = append(d.Sessions, gatewayRow(t, r))
		sess, err := lr.Session(context.Background(), r.Key, "")
		if err != nil {
			t.Fatalf("%s: %v", r.Key, err)
		}
		page, err := lr.History(context.Background(), sess, backend.HistoryQuery{All: true, IncludeTools: true})
		if err != nil {
			t.Fatalf("%s: %v", r.Key, err)
		}
		d.History[r.StoreKey] = page.Messages
	}
	return d
}

// gatewayRow is a sessions.list row for a local row.
func gatewayRow(t *testing.T, r state.Row) json.RawMessage {
	t.Helper()
	m := map[string]any{"key": r.StoreKey, "agentId": r.AgentID, "sessionId": r.SessionID, "channel": r.Channel}
	if r.Kind == "group" {
		m["chatType"] = "group"
	}
	if r.UpdatedAt != nil {
		m["updatedAt"] = *r.UpdatedAt
	}
	for k, v := range map[string]string{"label": r.Label, "displayName": r.DisplayName, "model": r.Model,
		"sendPolicy": r.SendPolicy, "spawnedBy": r.SpawnedBy, "lastChannel": r.LastChannel, "lastTo": r.LastTo} {
		if v != "" {
			m[k] = v
		}
	}
	if r.TotalTokens != nil {
		m["totalTokens"] = *r.TotalTokens
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

func keysOf(rows []state.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Key
	}
	return out
}

// wantCode requires err to carry exit code code and its message to contain
// every part.
func wantCode(t *testing.T, err error, code int, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want exit %d", code)
	}
	if got := apperr.CodeOf(err); got != code {
		t.Fatalf("exit %d (%v), want %d", got, err, code)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not say %q", err, p)
		}
	}
}

// checks are the conformance checks by name, for the suites that run them
// all on one shared implementation (the real gateways under interop).
var checks = []struct {
	name string
	fn   func(t *testing.T, fx *fixture)
}{
	{"list", checkList},
}

// TestConformanceList: every session, newest first, the totals and the
// limit said the same way; the kinds filter; the main session there.
func TestConformanceList(t *testing.T) { each(t, checkList) }

func checkList(t *testing.T, fx *fixture) {
	all, err := fx.ops.List(ctx(t), ops.ListQuery{Limit: -1, AllAgents: true})
	if err != nil {
		t.Fatal(err)
	}
	if all.Count < 2 || all.Count != all.TotalCount || all.HasMore || all.LimitApplied != nil {
		t.Fatalf("limit all: count %d total %d hasMore %v limit %v", all.Count, all.TotalCount, all.HasMore, all.LimitApplied)
	}
	if !slices.Contains(keysOf(all.Sessions), fx.main) {
		t.Fatalf("no %s in %q", fx.main, keysOf(all.Sessions))
	}
	for i := 1; i < len(all.Sessions); i++ {
		if a, b := all.Sessions[i-1].UpdatedAt, all.Sessions[i].UpdatedAt; a != nil && b != nil && *a < *b {
			t.Fatalf("not newest first at %d: %v < %v", i, *a, *b)
		}
	}
	one, err := fx.ops.List(ctx(t), ops.ListQuery{Limit: 1, AllAgents: true})
	if err != nil {
		t.Fatal(err)
	}
	if one.Count != 1 || one.TotalCount != all.TotalCount || !one.HasMore || one.LimitApplied == nil || *one.LimitApplied != 1 {
		t.Fatalf("limit 1: count %d total %d (all %d) hasMore %v", one.Count, one.TotalCount, all.TotalCount, one.HasMore)
	}
	if one.Sessions[0].Key != all.Sessions[0].Key {
		t.Fatalf("limit 1 gives %s, the newest is %s", one.Sessions[0].Key, all.Sessions[0].Key)
	}
	mains, err := fx.ops.List(ctx(t), ops.ListQuery{Limit: -1, AllAgents: true, Kinds: []string{"main"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range mains.Sessions {
		if r.Kind != "main" {
			t.Fatalf("--kinds main listed %s (%s)", r.Key, r.Kind)
		}
	}
	if !slices.Contains(keysOf(mains.Sessions), fx.main) {
		t.Fatalf("--kinds main: no %s in %q", fx.main, keysOf(mains.Sessions))
	}
}
