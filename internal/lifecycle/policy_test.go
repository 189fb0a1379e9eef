package lifecycle

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
)

// fakeWrites records the lifecycle writes asked of it.
type fakeWrites struct {
	sessionwrite.Writes // the other writes are never called
	route               sessionwrite.Route
	calls               []string
	opts                []sessionwrite.Lifecycle
	closed              bool
}

func (w *fakeWrites) Route() sessionwrite.Route { return w.route }

// throughGateway is the route of writes a gateway makes; direct, of
// writes made here to the JSON files.
var (
	throughGateway = sessionwrite.GatewayRoute(gateway.Endpoint{URL: "ws://gw:1"})
	direct         = sessionwrite.Route{Era: era.JSON}
)

func (w *fakeWrites) Close() error { w.closed = true; return nil }

func (w *fakeWrites) Delete(_ context.Context, ts []*state.Target, o sessionwrite.Lifecycle) (*sessionwrite.Outcome, error) {
	out := &sessionwrite.Outcome{}
	for _, t := range ts {
		w.calls = append(w.calls, "delete "+t.Key)
		out.Items = append(out.Items, sessionwrite.Item{Key: t.Key, AgentID: t.Agent, Bytes: 10})
	}
	w.opts = append(w.opts, o)
	return out, nil
}

func (w *fakeWrites) Reset(_ context.Context, t *state.Target, o sessionwrite.Lifecycle) (*sessionwrite.Item, error) {
	if o.Idle != nil {
		if err := o.Idle(t); err != nil {
			return nil, err
		}
	}
	w.calls = append(w.calls, "reset "+t.Key)
	return &sessionwrite.Item{Key: t.Key, NewSessionID: "new"}, nil
}

func (w *fakeWrites) Archive(_ context.Context, t *state.Target, o sessionwrite.Lifecycle) (*sessionwrite.Outcome, error) {
	w.calls = append(w.calls, "archive "+t.Key)
	return &sessionwrite.Outcome{Items: []sessionwrite.Item{{Key: t.Key}}}, nil
}

func fixture(t *testing.T, name string) *state.State {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", name), dir); err != nil {
		t.Fatal(err)
	}
	s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Home: t.TempDir()}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func resolve(t *testing.T, s *state.State, key string) *state.Target {
	t.Helper()
	tg, err := s.Resolve(key, policy.OpSend)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// The policy around the write seam: the main session refused before any
// writes are opened, the writes of each agent opened once and closed,
// the result summed up; prune hands its cutoff to the writes and skips
// main sessions.
func TestPolicyAroundTheSeam(t *testing.T) {
	s := fixture(t, "state-2026.1.30")
	ctx := context.Background()
	w := &fakeWrites{route: throughGateway}
	opened := 0
	o := Options{Open: func(string) (sessionwrite.Writes, error) { opened++; return w, nil }, Now: func() time.Time { return time.UnixMilli(1900000000000) }}

	if _, err := Delete(ctx, s, []*state.Target{resolve(t, s, "agent:main:hook:github:push-42"), resolve(t, s, "main")}, o); apperr.CodeOf(err) != 1 || err.Error() != MsgMain("agent:main:main") || opened != 0 {
		t.Fatalf("delete of main: %v (opened %d)", err, opened)
	}
	if _, err := Archive(ctx, s, resolve(t, s, "main"), o); err == nil || err.Error() != MsgArchiveMain || opened != 0 {
		t.Fatalf("archive of main: %v (opened %d)", err, opened)
	}

	res, err := Delete(ctx, s, []*state.Target{resolve(t, s, "agent:main:hook:github:push-42"), resolve(t, s, "agent:main:cron:9ebf7d12-92f8-4cd4-baed-e342d2ef4f39")}, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != "delete" || res.Count != 2 || res.Bytes != 20 || opened != 1 || !w.closed {
		t.Fatalf("delete %+v (opened %d, closed %v)", res, opened, w.closed)
	}

	w.calls, w.opts = nil, nil
	pr, err := Prune(ctx, s, []string{"main"}, 24*time.Hour, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.opts) != 1 || w.opts[0].Cutoff != time.UnixMilli(1900000000000).Add(-24*time.Hour).UnixMilli() {
		t.Fatalf("prune options %+v", w.opts)
	}
	if pr.Action != "prune" || pr.Count != len(w.calls) || len(pr.Skipped) == 0 || pr.Skipped[0].Reason != "main session" {
		t.Fatalf("prune %+v, calls %v", pr, w.calls)
	}
	for _, c := range w.calls {
		if c == "delete agent:main:main" {
			t.Fatal("prune deleted the main session")
		}
	}

	w.calls = nil
	rr, err := Reset(ctx, s, resolve(t, s, "agent:main:hook:github:push-42"), o)
	if err != nil || rr.Count != 1 || rr.Sessions[0].NewSessionID != "new" || !reflect.DeepEqual(w.calls, []string{"reset agent:main:hook:github:push-42"}) {
		t.Fatalf("reset %+v %v", rr, err)
	}
}

// Through a gateway the sessions are deleted in the order given; written
// here, one call per agent with all its sessions, agents in order.
func TestDeleteOrder(t *testing.T) {
	s := fixture(t, "state-2026.1.30")
	ctx := context.Background()
	keys := []string{"agent:main:hook:github:push-42", "agent:ops:cron:035bfbe3-107c-469b-8a17-ded8e4966021", "agent:main:cron:9ebf7d12-92f8-4cd4-baed-e342d2ef4f39"}
	var ts []*state.Target
	for _, k := range keys {
		ts = append(ts, resolve(t, s, k))
	}
	for _, r := range []sessionwrite.Route{throughGateway, direct} {
		ws := map[string]*fakeWrites{}
		o := Options{Open: func(agent string) (sessionwrite.Writes, error) {
			ws[agent] = &fakeWrites{route: r}
			return ws[agent], nil
		}}
		res, err := Delete(ctx, s, ts, o)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range res.Sessions {
			got = append(got, it.Key)
		}
		want := keys
		if !r.ThroughGateway() {
			want = []string{keys[0], keys[2], keys[1]}
		}
		if !reflect.DeepEqual(got, want) || len(ws["main"].opts) != map[bool]int{true: 2, false: 1}[r.ThroughGateway()] {
			t.Errorf("%s: %v (main called %d times)", r.Via(), got, len(ws["main"].opts))
		}
	}
}
