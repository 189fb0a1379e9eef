package ops_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/testutil"
)

// readsState copies the fixture testdata/NAME into a fresh state dir.
func readsState(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", name), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readsOps are the operations of c, with a home of their own; the state
// they open is closed at the end of the test.
func readsOps(t *testing.T, c ops.Config) *ops.Ops {
	t.Helper()
	c.Env = config.Env{Home: t.TempDir(), Getenv: func(string) string { return "" }}
	o := ops.New(c)
	t.Cleanup(func() {
		if s, err := o.OpenStateForTest(); err == nil {
			s.Close()
		}
	})
	return o
}

// TestHostOnlyThroughGateway: search, usage, locks, doctor and metrics
// through a gateway named on the command line are a usage error (exit 2),
// the answer of the host (no gateway implements a host-only read), the
// same for every front-end; without a gateway they pass.
func TestHostOnlyThroughGateway(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx := context.Background()
	for _, c := range []ops.Config{{Gateway: gatewaysel.Selector{URL: "ws://127.0.0.1:9"}}, {Gateway: gatewaysel.Selector{Contexts: []string{"prod"}}}} {
		o := readsOps(t, c)
		calls := map[*ops.HostRead]func() error{
			ops.ReadSearch: func() error {
				_, err := o.Search(ctx, ops.SearchQuery{Pattern: ops.SearchPattern{Pattern: "x"}})
				return err
			},
			ops.ReadUsage:   func() error { _, err := o.Usage(ctx, ops.UsageQuery{By: []string{"day"}}); return err },
			ops.ReadLocks:   func() error { _, err := o.Locks(ctx); return err },
			ops.ReadDoctor:  func() error { _, err := o.Doctor(ctx, ops.DoctorRequest{Fix: true}); return err },
			ops.ReadMetrics: func() error { _, err := ops.NewMetrics(o.Config(), ops.MetricsQuery{}); return err },
		}
		for r, call := range calls {
			for name, err := range map[string]error{"CanRead": o.CanRead(r), r.String(): call()} {
				if apperr.CodeOf(err) != apperr.CodeUsage || !strings.Contains(err.Error(), r.String()+" reads this host's state dir only and does not work through a gateway") {
					t.Errorf("%+v %s: %v", c, name, err)
				}
			}
		}
	}
	if err := readsOps(t, ops.Config{StateDir: t.TempDir()}).CanRead(ops.ReadSearch); err != nil {
		t.Fatal(err)
	}
}

// TestSearchBothEras: the hits of both eras, one by one and as a document,
// the match inside its snippet.
func TestSearchBothEras(t *testing.T) {
	for _, tc := range []struct{ fixture, pattern, source string }{
		{"state-2026.1.30", "MOCK", "transcript"},
		{"state-2026.9.6", "mock", "index"},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			o := readsOps(t, ops.Config{StateDir: readsState(t, tc.fixture)})
			res, err := o.Search(context.Background(), ops.SearchQuery{Pattern: ops.SearchPattern{Pattern: tc.pattern, IgnoreCase: true}, AllAgents: true, Limit: 3, Context: 1})
			if err != nil {
				t.Fatal(err)
			}
			if res.Count == 0 || res.Count != res.Len() || res.Count > 3 || res.TotalCount < res.Count || res.HasMore != (res.TotalCount > res.Count) || res.Hits != nil {
				t.Fatalf("result %+v", res)
			}
			res.Fill()
			if len(res.Hits) != res.Count {
				t.Fatalf("%d hits filled of %d", len(res.Hits), res.Count)
			}
			sources := map[string]bool{}
			for i, h := range res.Hits {
				pre, match, post := res.Highlight(i)
				if h != res.Hit(i) && h.Context == nil || pre+match+post != h.Snippet || match != h.Match || !strings.EqualFold(match, tc.pattern) {
					t.Errorf("hit %d: %+v; highlight %q %q %q", i, h, pre, match, post)
				}
				if h.AgentID == "" || h.SessionID == "" || h.Context == nil || h.Timestamp == nil {
					t.Errorf("hit %d: %+v", i, h)
				}
				sources[h.Source] = true
			}
			if !sources[tc.source] {
				t.Errorf("sources %v, want %s among them", sources, tc.source)
			}
			b, _ := json.Marshal(res)
			if !strings.HasPrefix(string(b), `{"count":`) || !strings.Contains(string(b), `"hits":[{`) {
				t.Errorf("document %s", b)
			}
		})
	}
}

// TestSearchUsageErrors: bad patterns and times are usage errors, an unknown
// label is not found.
func TestSearchUsageErrors(t *testing.T) {
	o := readsOps(t, ops.Config{StateDir: readsState(t, "state-2026.1.30")})
	ctx := context.Background()
	for _, q := range []ops.SearchQuery{
		{Pattern: ops.SearchPattern{Pattern: "(", Regex: true}},
		{Pattern: ops.SearchPattern{Pattern: "x"}, Since: "yesterday-ish"},
		{Pattern: ops.SearchPattern{Pattern: "x"}, Since: "1d", Until: "2d"},
	} {
		if _, err := o.Search(ctx, q); apperr.CodeOf(err) != apperr.CodeUsage {
			t.Errorf("%+v: %v", q, err)
		}
	}
	if _, err := o.Search(ctx, ops.SearchQuery{Pattern: ops.SearchPattern{Pattern: "x"}, Label: "no such label"}); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Errorf("label: %v", err)
	}
	for _, q := range []ops.UsageQuery{{By: []string{"day"}, Until: "soon"}, {By: []string{"day"}, Since: "1d", Until: "2d"}} {
		if _, err := o.Usage(ctx, q); apperr.CodeOf(err) != apperr.CodeUsage {
			t.Errorf("%+v: %v", q, err)
		}
	}
}

// TestUsageBothEras: the sums of both eras, the rows' dimensions first in
// the document, and a second run from the cache.
func TestUsageBothEras(t *testing.T) {
	for _, name := range []string{"state-2026.1.30", "state-2026.9.6"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			dir := readsState(t, name)
			run := func() *ops.UsageResult {
				res, err := readsOps(t, ops.Config{StateDir: dir}).Usage(context.Background(), ops.UsageQuery{By: []string{"agent", "model"}, AllAgents: true, IncludeArchived: true})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			res := run()
			if res.SchemaVersion != ops.UsageSchemaVersion || res.Count != len(res.Rows) || res.Count == 0 || res.Totals.Messages == 0 || res.Files.Total == 0 || res.Files.Read != res.Files.Total {
				t.Fatalf("%+v", res)
			}
			var sum int64
			for _, r := range res.Rows {
				sum += r.Totals.Messages
			}
			if sum != res.Totals.Messages {
				t.Errorf("rows sum to %d messages, totals %d", sum, res.Totals.Messages)
			}
			b, err := json.Marshal(res.Rows[0])
			if err != nil || !strings.HasPrefix(string(b), `{"agent":"`) || !strings.Contains(string(b), `,"model":"`) {
				t.Errorf("row %s %v", b, err)
			}
			again := run()
			if again.Files.Read != 0 || again.Files.Cached != res.Files.Total || again.Totals != res.Totals {
				t.Errorf("second run: %+v", again.Files)
			}
		})
	}
}

// TestLocks: nothing held is an empty list; a dead writer's transcript lock
// is found, with its session, and left alone.
func TestLocks(t *testing.T) {
	dir := readsState(t, "state-2026.1.30")
	o := readsOps(t, ops.Config{StateDir: dir, Now: func() time.Time { return time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC) }})
	res, err := o.Locks(context.Background())
	if err != nil || res.Count != 0 || res.Locks == nil {
		t.Fatalf("%+v %v", res, err)
	}
	p := filepath.Join(dir, "agents", "main", "sessions", "26a610b5-ea74-4c48-bd74-9be14f7f2944.jsonl.lock")
	if err := os.WriteFile(p, []byte(`{"pid": 999999999, "createdAt": "2026-01-01T00:00:00.000Z"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err = readsOps(t, ops.Config{StateDir: dir, Now: func() time.Time { return time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC) }}).Locks(context.Background())
	if err != nil || res.Count != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	l := res.Locks[0]
	if l.Kind != ops.LockTranscript || l.Path != p || l.PID != 999999999 || l.Alive || l.AgeSeconds != 60 || l.SessionKey == "" || l.AgentID != "main" {
		t.Errorf("%+v", l)
	}
	if _, err := os.Stat(p); err != nil {
		t.Error("lock touched:", err)
	}
}

// TestDoctor: a clean fixture is ok; a dead writer's lock is an open
// finding (exit 1 after the document) that Fix removes; a requester that
// is not the operator is refused.
func TestDoctor(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"state-2026.1.30", "state-2026.9.6"} {
		res, err := readsOps(t, ops.Config{StateDir: readsState(t, name)}).Doctor(ctx, ops.DoctorRequest{})
		if err != nil || res.Findings == nil || res.Size == "" || res.StateDir == "" {
			t.Fatalf("%s: %+v %v", name, res, err)
		}
		if (res.Outcome == nil) != (res.Status == "ok") {
			t.Errorf("%s: status %s, outcome %v", name, res.Status, res.Outcome)
		}
	}
	dir := readsState(t, "state-2026.1.30")
	p := filepath.Join(dir, "agents", "main", "sessions", "26a610b5-ea74-4c48-bd74-9be14f7f2944.jsonl.lock")
	if err := os.WriteFile(p, []byte(`{"pid": 999999999, "createdAt": "2026-01-01T00:00:00.000Z"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := readsOps(t, ops.Config{StateDir: dir}).Doctor(ctx, ops.DoctorRequest{})
	if err != nil || res.Status != "error" || res.Outcome == nil || res.Counts.Fixable == 0 || res.Fixed != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if e, ok := res.Outcome.(*apperr.Error); !ok || !e.Printed || res.Error != e.Error() {
		t.Errorf("outcome %#v", res.Outcome)
	}
	res, err = readsOps(t, ops.Config{StateDir: dir}).Doctor(ctx, ops.DoctorRequest{Fix: true})
	if err != nil || res.Fixed == 0 || !res.Fix {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("dead lock still there: %v", err)
	}
	if _, err := readsOps(t, ops.Config{StateDir: dir, As: "agent:main:main"}).Doctor(ctx, ops.DoctorRequest{}); apperr.CodeOf(err) != apperr.CodeForbidden {
		t.Errorf("requester: %v", err)
	}
}
