package ops

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/launch"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/testutil"
)

// writesEnv isolates a test of the write operations: no user config (no
// contexts, a fresh device identity), run homes of gateways under a
// temporary dir, and a runner that exits at once (the run stays accepted).
func writesEnv(t *testing.T, extra map[string]string) func(string) string {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("SESSIONS_RUNNER_EXE", "/bin/true")
	env := map[string]string{"XDG_STATE_HOME": t.TempDir()}
	for k, v := range extra {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

// localOps works on a copy of a fixture state dir.
func localOps(t *testing.T, fixture string) (*Ops, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", fixture), dir); err != nil {
		t.Fatal(err)
	}
	return New(Config{StateDir: dir, Env: config.Env{Home: t.TempDir()}, Getenv: writesEnv(t, nil)}), dir
}

// gatewayOps works through a fake gateway it names (--gateway URL, the
// token in the environment), with one session agent:main:main.
func gatewayOps(t *testing.T, protocol int) (*Ops, *gatewaytest.Server) {
	t.Helper()
	s := gatewaytest.Start(protocol, "tok", gatewaytest.Data{Sessions: []json.RawMessage{
		json.RawMessage(`{"key":"agent:main:main","kind":"direct","sessionId":"11111111-1111-4111-8111-111111111111","updatedAt":1795446000000,"lastChannel":"telegram","lastTo":"123"}`),
	}})
	s.W = &gatewaytest.Writes{}
	t.Cleanup(s.Close)
	getenv := writesEnv(t, map[string]string{"OPENCLAW_GATEWAY_TOKEN": "tok"})
	return New(Config{Gateway: gatewaysel.Selector{URL: s.URL()}, StateDir: filepath.Join(t.TempDir(), "none"), Getenv: getenv}), s
}

var fixtures = []string{"state-2026.1.30", "state-2026.9.6"}

func TestPatchLocalBothEras(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			o, _ := localOps(t, fx)
			res, err := o.Patch(context.Background(), PatchRequest{Ref: "main", SetLabel: true, Label: "ops-label", SendPolicy: "deny"})
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK || res.Key != "agent:main:main" || res.Path == "" || len(res.Warnings) != 0 {
				t.Errorf("result %+v", res)
			}
			var e struct{ Label, SendPolicy string }
			if err := json.Unmarshal(res.Entry, &e); err != nil || e.Label != "ops-label" || e.SendPolicy != "deny" {
				t.Errorf("entry %s (%v)", res.Entry, err)
			}
			// the new state is what a fresh invocation reads
			if _, err := New(o.Config()).Patch(context.Background(), PatchRequest{TargetLabel: "ops-label", ClearLabel: true}); err != nil {
				t.Errorf("by the new label: %v", err)
			}
		})
	}
}

func TestPatchNamedGateway(t *testing.T) {
	o, s := gatewayOps(t, 3)
	res, err := o.Patch(context.Background(), PatchRequest{Ref: "main", SetLabel: true, Label: "over-gw"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Key != "agent:main:main" || res.DisplayKey != "agent:main:main" || !strings.Contains(string(res.Entry), `"over-gw"`) {
		t.Errorf("result %+v entry %s", res, res.Entry)
	}
	if m := strings.Join(s.Methods(), " "); !strings.Contains(m, "sessions.patch") {
		t.Errorf("methods %s", m)
	}
	if _, err := o.Patch(context.Background(), PatchRequest{Ref: "main", ClearLabel: true, WaitIdle: time.Second}); apperr.CodeOf(err) != apperr.CodeUsage {
		t.Errorf("--wait-idle over a gateway: %v", err)
	}
}

func TestSendAcceptedBothEras(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			o, dir := localOps(t, fx)
			res, err := o.Send(context.Background(), SendRequest{Ref: "main", Message: "hello", Engine: "exec:cat"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != runs.StatusAccepted || res.SessionKey != "main" /* as the requester named it */ || res.RunID == "" || res.Reply != nil {
				t.Errorf("result %+v", res)
			}
			rec, err := runs.Open(dir).Load(res.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Kind != runs.KindSend || rec.Message != "hello" || rec.Engine != "exec:cat" || rec.Target.Key != "agent:main:main" || rec.Requester != nil {
				t.Errorf("record %+v", rec)
			}
			if _, err := o.Send(context.Background(), SendRequest{Ref: "no-such-session", Message: "x"}); apperr.CodeOf(err) != apperr.CodeNotFound {
				t.Errorf("unknown session: %v", err)
			}
		})
	}
}

// Through a named gateway the turn is the gateway's (another engine is a
// usage error), the run is recorded in the gateway's home, and wait finds
// it there.
func TestSendAndWaitNamedGateway(t *testing.T) {
	o, _ := gatewayOps(t, 4)
	if _, err := o.Send(context.Background(), SendRequest{Ref: "main", Message: "x", Engine: "exec:cat"}); apperr.CodeOf(err) != apperr.CodeUsage {
		t.Errorf("exec engine through a gateway: %v", err)
	}
	res, err := o.Send(context.Background(), SendRequest{Ref: "main", Message: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := o.runStore()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := rs.Load(res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Engine != "gateway" || rec.Target.SessionID != "11111111-1111-4111-8111-111111111111" || !strings.Contains(rs.Dir(), "gateways") {
		t.Errorf("record %+v in %s", rec, rs.Dir())
	}
	// the runner's first step done: wait gives send's result
	rec.Steps = []runs.Step{{Status: runs.StatusOK}}
	rec.Reply, rec.ReplyDone = "pong", true
	if err := rs.Save(rec); err != nil {
		t.Fatal(err)
	}
	var waited, ended string
	got, err := o.Wait(context.Background(), WaitRequest{RunID: " " + res.RunID + " ", Timeout: time.Minute,
		OnWait: func(target string) func() { waited = target; return func() { ended = target } }})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if want := `{"runId":"` + res.RunID + `","status":"ok","reply":"pong","sessionKey":"agent:main:main","delivery":{"status":"pending","mode":"announce"}}`; string(b) != want {
		t.Errorf("wait: %s\nwant %s", b, want)
	}
	if waited != "agent:main:main" || ended != waited {
		t.Errorf("OnWait told %q, done %q", waited, ended)
	}
}

// A wait that gives up — its timeout, or the caller's context — says the
// run id: the run goes on.
func TestWaitGivesUpWithRunID(t *testing.T) {
	o, dir := localOps(t, "state-2026.1.30")
	rs := runs.Open(dir)
	// accepted just now: its runner is not yet due
	rec := &runs.Record{RunID: runs.NewID(), Kind: runs.KindSend, Status: runs.StatusAccepted, CreatedAt: time.Now().UnixMilli(), Target: runs.Session{Key: "agent:main:main"}, Steps: []runs.Step{}}
	if err := rs.Save(rec); err != nil {
		t.Fatal(err)
	}
	runIDOf := func(err error) any {
		var e *apperr.Error
		if errors.As(err, &e) {
			return e.Extra["runId"]
		}
		return nil
	}
	_, err := o.Wait(context.Background(), WaitRequest{RunID: rec.RunID, Timeout: 50 * time.Millisecond})
	if apperr.CodeOf(err) != apperr.CodeTimeout || runIDOf(err) != rec.RunID || !strings.Contains(err.Error(), "the run goes on") {
		t.Errorf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = launch.Wait(ctx, rs, rec, time.Minute)
	if !errors.Is(err, context.Canceled) || runIDOf(err) != rec.RunID {
		t.Errorf("cancelled: %v", err)
	}
	// a first step that failed is an error with the run id
	rec.Steps = []runs.Step{{Status: runs.StatusTimeout, Error: "turn timed out"}}
	rec.ReplyDone = true
	if err := rs.Save(rec); err != nil {
		t.Fatal(err)
	}
	_, err = o.Wait(context.Background(), WaitRequest{RunID: rec.RunID, Timeout: time.Minute})
	if apperr.CodeOf(err) != apperr.CodeTimeout || runIDOf(err) != rec.RunID || err.Error() != "turn timed out" {
		t.Errorf("failed step: %v", err)
	}
}

func TestSpawnLocalBothEras(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			o, dir := localOps(t, fx)
			res, err := o.Spawn(context.Background(), SpawnRequest{Task: "count", Label: "kid", Cleanup: "keep", Engine: "exec:cat"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != runs.StatusAccepted || !strings.HasPrefix(res.ChildSessionKey, "agent:main:subagent:") {
				t.Errorf("result %+v", res)
			}
			rec, err := runs.Open(dir).Load(res.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Kind != runs.KindSpawn || rec.Spawn == nil || rec.Spawn.Label != "kid" || rec.Target.Key != res.ChildSessionKey || rec.Requester == nil || rec.Requester.Key != "agent:main:main" {
				t.Errorf("record %+v", rec)
			}
			s, err := New(o.Config()).where.State()
			if err != nil {
				t.Fatal(err)
			}
			if ch, err := s.Lookup(res.ChildSessionKey); err != nil || ch == nil || ch.Entry.Label != "kid" {
				t.Errorf("child %+v %v", ch, err)
			}
			if _, err := o.Spawn(context.Background(), SpawnRequest{Task: "x", Thinking: "bogus", Cleanup: "keep"}); apperr.CodeOf(err) != apperr.CodeUsage {
				t.Errorf("bad thinking level: %v", err)
			}
		})
	}
}

func TestSpawnNamedGateway(t *testing.T) {
	o, s := gatewayOps(t, 4)
	if _, err := o.Spawn(context.Background(), SpawnRequest{Task: "x", Cleanup: "keep", Label: strings.Repeat("a", 65)}); apperr.CodeOf(err) != apperr.CodeUsage {
		t.Errorf("a 65-character label: %v", err)
	}
	res, err := o.Spawn(context.Background(), SpawnRequest{Task: "count", Label: "kid", Cleanup: "delete"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != runs.StatusAccepted || !strings.HasPrefix(res.ChildSessionKey, "agent:main:subagent:") {
		t.Errorf("result %+v", res)
	}
	rs, _ := o.runStore()
	rec, err := rs.Load(res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Engine != "gateway" || rec.Spawn == nil || rec.Spawn.Cleanup != "delete" || rec.Spawn.GatewayRoute == "" || rec.Requester == nil || rec.Requester.Key != "agent:main:main" {
		t.Errorf("record %+v %+v", rec, rec.Spawn)
	}
	// 9.x: the child is the gateway's sessions.create with parentSessionKey
	if m := strings.Join(s.Methods(), " "); !strings.Contains(m, "sessions.create") || rec.Spawn.GatewayRoute != "sessions.create" {
		t.Errorf("methods %s", m)
	}
}

// A send's and a spawn's own inputs are checked once, by ops, whatever the
// front-end (usage errors, exit 2), before any state is read: the state
// dir here does not exist.
func TestSendSpawnInputsCheckedByOps(t *testing.T) {
	o := New(Config{StateDir: filepath.Join(t.TempDir(), "none"), Getenv: writesEnv(t, nil)})
	ctx := context.Background()
	for name, q := range map[string]SendRequest{
		"message required":            {Ref: "main", Message: "  "},
		"--timeout must be 0 or more": {Ref: "main", Message: "hi", Timeout: -time.Second},
		"invalid --engine":            {Ref: "main", Message: "hi", Engine: "bogus"},
	} {
		if _, err := o.Send(ctx, q); apperr.CodeOf(err) != apperr.CodeUsage || !strings.Contains(err.Error(), name) {
			t.Errorf("send %s: %v", name, err)
		}
	}
	for name, q := range map[string]SpawnRequest{
		"task required":                   {Task: " "},
		"--run-timeout must be 0 or more": {Task: "t", RunTimeoutSeconds: -1},
		"invalid --cleanup":               {Task: "t", Cleanup: "later"},
		"invalid --engine":                {Task: "t", Engine: "bogus"},
	} {
		if _, err := o.Spawn(ctx, q); apperr.CodeOf(err) != apperr.CodeUsage || !strings.Contains(err.Error(), name) {
			t.Errorf("spawn %s: %v", name, err)
		}
	}
}
