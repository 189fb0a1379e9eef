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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/backend/local"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/runs"
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
	// mk makes the operations of one invocation (a fresh Ops keeps no
	// state of an earlier one, as a new CLI process would not).
	mk func() *ops.Ops
	// main is the key of the default agent's main session as the
	// implementation shows it ("main" locally, where the display key is
	// the short one; the whole key over a gateway).
	main string
	// remote: the sessions are reached through a gateway.
	remote bool
	// gw is the fake gateway, when there is one (nil for a real one).
	gw *gatewaytest.Server
	// runs is the run store of this implementation's runs (the state dir's,
	// or the named gateway's home on this machine).
	runs func() *runs.Store
}

func (fx *fixture) ops() *ops.Ops { return fx.mk() }

// settle waits (bounded) for the detached runner of runID to exit, so
// that nothing writes into a test's directories once it ends.
func (fx *fixture) settle(t *testing.T, runID string) {
	t.Cleanup(func() {
		// the runner may not hold its lock yet when the call returns: wait
		// for the run to end, then for its runner to be gone
		rs := fx.runs()
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if rec, err := rs.Load(runID); err == nil && runs.Terminal(rec.Status) && !rs.RunnerAlive(runID) {
				return
			}
		}
		t.Errorf("run %s did not end within 2 minutes", runID)
	})
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

func sessionsBinary(t *testing.T) string { return testutil.SessionsBinary(t) }

func TestMain(m *testing.M) {
	// the search index: never in the user's cache dir
	cache, err := os.MkdirTemp("", "ops-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	testutil.RemoveBinary()
	os.Exit(code)
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
	// turns by an exec engine (a reply made from the message), performed
	// by a real detached runner: the sessions binary
	engine := filepath.Join(tmp, "engine.sh")
	if err := os.WriteFile(engine, []byte(testutil.EngineScript), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SESSIONS_RUNNER_EXE", sessionsBinary(t))
	env := isolate(t, tmp, map[string]string{"SESSIONS_ENGINE": "exec:sh " + engine})
	return &fixture{mk: func() *ops.Ops { return newOps(tmp, env, ops.Config{StateDir: dir}) }, main: "main",
		runs: func() *runs.Store { return runs.Open(dir) }}
}

// openFake starts a fake gateway of protocol serving the sessions of the
// fixture state name: its sessions.list rows and chat.history messages are
// what this host reads locally from that state.
func openFake(t *testing.T, protocol int, name string) *fixture {
	tmp, dir := copyFixture(t, name)
	t.Setenv("SESSIONS_RUNNER_EXE", sessionsBinary(t))
	env := isolate(t, tmp, nil)
	d := gatewayData(t, tmp, env, dir)
	srv := gatewaytest.Start(protocol, "tok", d)
	srv.W = &gatewaytest.Writes{}
	t.Cleanup(srv.Close)
	tokenFile := filepath.Join(tmp, "gw.token")
	if err := os.WriteFile(tokenFile, []byte("tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// the state dir the gateway serves is this host's too: the lifecycle
	// operations resolve their keys in it (as on a host whose gateway runs)
	mk := func() *ops.Ops {
		return newOps(tmp, env, ops.Config{Gateway: gatewaysel.Selector{URL: srv.URL(), TokenFile: tokenFile}, StateDir: dir})
	}
	return &fixture{mk: mk, main: "agent:main:main", remote: true, gw: srv, runs: gatewayRuns(t, mk)}
}

// gatewayData is what a gateway over the state dir would serve: every
// session as a sessions.list row (newest first) and its transcript as
// chat.history.
func gatewayData(t *testing.T, tmp string, env map[string]string, dir string) gatewaytest.Data {
	t.Helper()
	here := newOps(tmp, env, ops.Config{StateDir: dir})
	res, err := here.List(context.Background(), ops.ListQuery{Limit: -1, AllAgents: true})
	if err != nil {
		t.Fatal(err)
	}
	lr := &local.Local{State: here.OpenStateForTest, Warn: func(string) {}}
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

// gatewayRuns is the run store of the gateway an Ops names.
func gatewayRuns(t *testing.T, mk func() *ops.Ops) func() *runs.Store {
	return func() *runs.Store {
		rs, err := mk().RunStoreForTest()
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
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
	{"show", checkShow},
	{"history", checkHistory},
	{"capabilities", checkCapabilities},
	{"agents", checkAgents},
	{"host-only", checkHostOnly},
	{"not-found", checkNotFound},
	{"patch", checkPatch},
	{"send-wait", checkSendWait},
	{"spawn", checkSpawn},
}

// TestConformanceList: every session, newest first, the totals and the
// limit said the same way; the kinds filter; the main session there.
func TestConformanceList(t *testing.T) { each(t, checkList) }

func checkList(t *testing.T, fx *fixture) {
	all, err := fx.ops().List(ctx(t), ops.ListQuery{Limit: -1, AllAgents: true})
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
	one, err := fx.ops().List(ctx(t), ops.ListQuery{Limit: 1, AllAgents: true})
	if err != nil {
		t.Fatal(err)
	}
	if one.Count != 1 || one.TotalCount != all.TotalCount || !one.HasMore || one.LimitApplied == nil || *one.LimitApplied != 1 {
		t.Fatalf("limit 1: count %d total %d (all %d) hasMore %v", one.Count, one.TotalCount, all.TotalCount, one.HasMore)
	}
	if one.Sessions[0].Key != all.Sessions[0].Key {
		t.Fatalf("limit 1 gives %s, the newest is %s", one.Sessions[0].Key, all.Sessions[0].Key)
	}
	mains, err := fx.ops().List(ctx(t), ops.ListQuery{Limit: -1, AllAgents: true, Kinds: []string{"main"}})
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

// TestConformanceNotFound: a session that does not exist is exit 4 on
// every implementation, for a read and a write alike.
func TestConformanceNotFound(t *testing.T) { each(t, checkNotFound) }

func checkNotFound(t *testing.T, fx *fixture) {
	_, err := fx.ops().Patch(ctx(t), ops.PatchRequest{Ref: "agent:main:no-such-session", SetLabel: true, Label: "x"})
	wantCode(t, err, apperr.CodeNotFound, "agent:main:no-such-session")
	_, err = fx.ops().Send(ctx(t), ops.SendRequest{Ref: "agent:main:no-such-session", Message: "hi"})
	wantCode(t, err, apperr.CodeNotFound, "agent:main:no-such-session")
}

// TestConformancePatch: a label set is listed with the session, then
// cleared; a send policy of deny is listed too.
func TestConformancePatch(t *testing.T) { each(t, checkPatch) }

func checkPatch(t *testing.T, fx *fixture) {
	label := fmt.Sprintf("conformance-%d", time.Now().UnixNano())
	res, err := fx.ops().Patch(ctx(t), ops.PatchRequest{Ref: fx.main, SetLabel: true, Label: label})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Fatalf("patch: %+v", res)
	}
	if got := rowOf(t, fx, fx.main); got.Label != label {
		t.Fatalf("label %q after the patch, want %q", got.Label, label)
	}
	if _, err := fx.ops().Patch(ctx(t), ops.PatchRequest{Ref: fx.main, ClearLabel: true}); err != nil {
		t.Fatal(err)
	}
	if got := rowOf(t, fx, fx.main); got.Label != "" {
		t.Fatalf("label %q after clearing it", got.Label)
	}
	// a label too long for every era: a usage error, nothing written
	_, err = fx.ops().Patch(ctx(t), ops.PatchRequest{Ref: fx.main, SetLabel: true, Label: strings.Repeat("x", 600)})
	wantCode(t, err, apperr.CodeUsage, "label", "too long")
}

// rowOf is key's row in a listing of every session.
func rowOf(t *testing.T, fx *fixture, key string) state.Row {
	t.Helper()
	all, err := fx.ops().List(ctx(t), ops.ListQuery{Limit: -1, AllAgents: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all.Sessions {
		if r.Key == key {
			return r
		}
	}
	t.Fatalf("no %s in %q", key, keysOf(all.Sessions))
	return state.Row{}
}

// TestConformanceSendWait: a send waits for the target's reply (the same
// result shape everywhere), and wait on its run gives that result again.
func TestConformanceSendWait(t *testing.T) { each(t, checkSendWait) }

func checkSendWait(t *testing.T, fx *fixture) {
	msg := fmt.Sprintf("conformance ping %d", time.Now().UnixNano())
	res, err := fx.ops().Send(ctx(t), ops.SendRequest{Ref: fx.main, Message: msg, Timeout: 45 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	fx.settle(t, res.RunID)
	if res.Status != "ok" || res.Reply == nil || *res.Reply == "" || res.RunID == "" || res.SessionKey != fx.main {
		t.Fatalf("send: %+v", res)
	}
	again, err := fx.ops().Wait(ctx(t), ops.WaitRequest{RunID: res.RunID, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if again.RunID != res.RunID || again.Status != "ok" || *again.Reply != *res.Reply {
		t.Fatalf("wait: %+v, send gave %+v", again, res)
	}
	_, err = fx.ops().Wait(ctx(t), ops.WaitRequest{RunID: "00000000-0000-4000-8000-000000000000", Timeout: time.Second})
	wantCode(t, err, apperr.CodeNotFound)
}

// TestConformanceSpawn: a sub-agent child is created for the requester
// and listed as spawned by it.
func TestConformanceSpawn(t *testing.T) { each(t, checkSpawn) }

func checkSpawn(t *testing.T, fx *fixture) {
	res, err := fx.ops().Spawn(ctx(t), ops.SpawnRequest{Task: "conformance task", Cleanup: "keep"})
	if err != nil {
		t.Fatal(err)
	}
	fx.settle(t, res.RunID)
	if res.Status != "accepted" || res.RunID == "" || !strings.Contains(res.ChildSessionKey, ":subagent:") {
		t.Fatalf("spawn: %+v", res)
	}
	child := rowOfStore(t, fx, res.ChildSessionKey)
	if child.SpawnedBy == "" && !fx.remote {
		t.Fatalf("child %s has no spawnedBy", child.Key)
	}
}

// rowOfStore is the row whose whole key is key.
func rowOfStore(t *testing.T, fx *fixture, key string) state.Row {
	t.Helper()
	all, err := fx.ops().List(ctx(t), ops.ListQuery{Limit: -1, AllAgents: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all.Sessions {
		if r.Key == key || r.StoreKey == key {
			return r
		}
	}
	t.Fatalf("no %s in %q", key, keysOf(all.Sessions))
	return state.Row{}
}

// TestConformanceShow: one session, its key, sessionId and era as the
// listing says, and its transcript counted.
func TestConformanceShow(t *testing.T) { each(t, checkShow) }

func checkShow(t *testing.T, fx *fixture) {
	row := rowOf(t, fx, fx.main)
	sh, err := fx.ops().Show(ctx(t), ops.ShowQuery{Ref: fx.main})
	if err != nil {
		t.Fatal(err)
	}
	if sh.Session == nil || sh.Fleet != nil {
		t.Fatalf("show of one host: %+v", sh)
	}
	r := sh.Session
	if r.Key != fx.main || r.SessionID != row.SessionID || r.AgentID != "main" || r.Kind != "main" {
		t.Fatalf("show: key %s sessionId %s agent %s kind %s; list: %s %s", r.Key, r.SessionID, r.AgentID, r.Kind, row.Key, row.SessionID)
	}
	if fx.remote != (r.Era == "gateway") {
		t.Fatalf("era %s, remote %v", r.Era, fx.remote)
	}
	if r.Transcript.Messages == 0 {
		t.Fatalf("no messages counted: %+v", r.Transcript)
	}
	_, err = fx.ops().Show(ctx(t), ops.ShowQuery{Ref: "agent:main:no-such-session"})
	wantCode(t, err, apperr.CodeNotFound, "agent:main:no-such-session")
}

// TestConformanceHistory: the newest page first, every older message
// reachable through the cursors, oldest first within a page, nothing
// twice.
func TestConformanceHistory(t *testing.T) { each(t, checkHistory) }

func checkHistory(t *testing.T, fx *fixture) {
	o := fx.ops()
	sess, err := o.Session(ctx(t), fx.main, "")
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	whole, err := o.History(ctx(t), sess, ops.HistoryQuery{Limit: 1000, IncludeTools: true, Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Messages) < 2 || whole.HasMore {
		t.Fatalf("the whole transcript: %d messages, hasMore %v", len(whole.Messages), whole.HasMore)
	}
	var walked []json.RawMessage
	before := ""
	for pages := 0; ; pages++ {
		if pages > len(whole.Messages) {
			t.Fatal("the cursor walk does not end")
		}
		page, err := o.History(ctx(t), sess, ops.HistoryQuery{Limit: 1, IncludeTools: true, Raw: true, Before: before})
		if err != nil {
			t.Fatal(err)
		}
		walked = append(append([]json.RawMessage{}, page.Messages...), walked...)
		if !page.HasMore {
			break
		}
		if page.NextCursor == "" {
			t.Fatal("hasMore without a nextCursor")
		}
		before = page.NextCursor
	}
	if len(walked) != len(whole.Messages) {
		t.Fatalf("the walk read %d messages, the whole page has %d", len(walked), len(whole.Messages))
	}
	for i := range walked {
		if string(walked[i]) != string(whole.Messages[i]) {
			t.Fatalf("message %d differs:\n%s\n%s", i, walked[i], whole.Messages[i])
		}
	}
	_, err = o.Session(ctx(t), "agent:main:no-such-session", "")
	wantCode(t, err, apperr.CodeNotFound, "agent:main:no-such-session")
}

// TestConformanceCapabilities: what each implementation says it can do.
func TestConformanceCapabilities(t *testing.T) { each(t, checkCapabilities) }

func checkCapabilities(t *testing.T, fx *fixture) {
	c, err := fx.ops().Capabilities(ctx(t), "main")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Readable || !c.Writable || c.WhyNot != "" {
		t.Fatalf("main: %+v", c)
	}
	if fx.remote != c.TurnsInOpenClaw || fx.remote != (c.WritesThrough != "") {
		t.Fatalf("remote %v: %+v", fx.remote, c)
	}
	switch {
	case c.Era == "json" || c.Era == "gateway":
		if c.LabelMax != 64 && !(c.Era == "gateway" && c.LabelMax == 512) {
			t.Fatalf("label max %d on %s", c.LabelMax, c.Era)
		}
	case c.Era == "sqlite":
		if c.LabelMax != 512 {
			t.Fatalf("label max %d on sqlite", c.LabelMax)
		}
	default:
		t.Fatalf("era %q", c.Era)
	}
}

// TestConformanceAgents: the default agent is listed, visible, writable
// and a spawn target for the operator.
func TestConformanceAgents(t *testing.T) { each(t, checkAgents) }

func checkAgents(t *testing.T, fx *fixture) {
	res, err := fx.ops().Agents(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.DefaultAgent != "main" && !fx.remote {
		t.Fatalf("default agent %q", res.DefaultAgent)
	}
	for _, a := range res.Agents {
		if a.ID == "main" {
			if !a.Visible || !a.Writable || !a.CanSpawn {
				t.Fatalf("main: %+v", a)
			}
			return
		}
	}
	t.Fatalf("no agent main in %+v", res.Agents)
}

// lifecycleTarget is a group session every fixture has (not a main one).
const lifecycleTarget = "agent:main:telegram:group:-100123"

// TestConformanceLifecycle: a dry run changes nothing and says what a
// delete would do; the delete removes the session from the listing; a
// main session is refused the same way everywhere.
func TestConformanceLifecycle(t *testing.T) { each(t, checkLifecycle) }

func checkLifecycle(t *testing.T, fx *fixture) {
	before := rowOfStore(t, fx, lifecycleTarget)
	dry, err := fx.ops().Delete(ctx(t), ops.DeleteRequest{Keys: []string{lifecycleTarget}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !dry.DryRun || dry.Action != "delete" || dry.Count != 1 || len(dry.Sessions) != 1 {
		t.Fatalf("dry run: %+v", dry)
	}
	if after := rowOfStore(t, fx, lifecycleTarget); after.SessionID != before.SessionID {
		t.Fatalf("the dry run changed the session: %+v", after)
	}
	_, err = fx.ops().Delete(ctx(t), ops.DeleteRequest{Keys: []string{fx.main}})
	wantCode(t, err, apperr.CodeError, "Cannot delete the main session")
	res, err := fx.ops().Delete(ctx(t), ops.DeleteRequest{Keys: []string{lifecycleTarget}})
	if err != nil {
		t.Fatal(err)
	}
	if res.DryRun || res.Count != 1 {
		t.Fatalf("delete: %+v", res)
	}
	all, err := fx.ops().List(ctx(t), ops.ListQuery{Limit: -1, AllAgents: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all.Sessions {
		if r.StoreKey == lifecycleTarget || r.Key == lifecycleTarget {
			t.Fatalf("%s still listed after its delete", lifecycleTarget)
		}
	}
	if !fx.remote {
		// (through a gateway the key is resolved in the local state dir,
		// which the gateway's delete does not change in the fake)
		_, err = fx.ops().Delete(ctx(t), ops.DeleteRequest{Keys: []string{lifecycleTarget}})
		wantCode(t, err, apperr.CodeNotFound, lifecycleTarget)
	}
}
