package ops

import (
	"context"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/runs"
)

func saveRuns(t *testing.T, rs *runs.Store, recs ...*runs.Record) {
	t.Helper()
	for _, r := range recs {
		if err := rs.Save(r); err != nil {
			t.Fatal(err)
		}
	}
}

// Our runs, newest first, filtered and limited, with the page that says
// what was left out; the tree of the spawn runs; a bad source refused.
func TestRunsLocal(t *testing.T) {
	o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{})
	ctx := context.Background()
	req := &runs.Session{Key: "agent:main:main"}
	saveRuns(t, runs.Open(dir),
		&runs.Record{RunID: runs.NewID(), Kind: runs.KindSend, Status: runs.StatusOK, CreatedAt: 1, Target: runs.Session{Key: "agent:main:cron:x"}},
		&runs.Record{RunID: runs.NewID(), Kind: runs.KindSpawn, Status: runs.StatusOK, CreatedAt: 2, Target: runs.Session{Key: "agent:main:subagent:a"}, Requester: req, Spawn: &runs.Spawn{Label: "a"}},
		&runs.Record{RunID: runs.NewID(), Kind: runs.KindSpawn, Status: runs.StatusError, CreatedAt: 3, Target: runs.Session{Key: "agent:main:subagent:b"}, Requester: &runs.Session{Key: "agent:main:subagent:a"}, Spawn: &runs.Spawn{Label: "b"}},
	)
	res, err := o.Runs(ctx, RunsQuery{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 2 || res.TotalCount != 3 || !res.HasMore || *res.LimitApplied != 2 || res.Runs[0].CreatedAt != 3 || res.Source != RunsSourceSessions || res.Errors != nil {
		t.Fatalf("page %+v", res.RunsPage)
	}
	res, err = o.Runs(ctx, RunsQuery{Status: runs.StatusOK, Session: "agent:main:main", Limit: -1})
	if err != nil || res.Count != 1 || res.Runs[0].Target.Key != "agent:main:subagent:a" || res.LimitApplied != nil {
		t.Fatalf("filtered: %+v %v", res, err)
	}
	res, err = o.Runs(ctx, RunsQuery{Tree: true, Limit: -1})
	theirs := 0
	for _, r := range res.Runs {
		if r.Source == RunsSourceOpenClaw {
			theirs++
		}
	}
	if err != nil || res.Source != RunsSourceAll || theirs == 0 || res.Count != 2+theirs {
		t.Fatalf("tree of ours and OpenClaw's: %+v %v", res, err)
	}
	res, err = o.Runs(ctx, RunsQuery{Tree: true, Source: RunsSourceSessions, Limit: -1})
	if err != nil || len(res.Tree) != 1 || res.Tree[0].SessionKey != "agent:main:main" ||
		len(res.Tree[0].Children) != 1 || len(res.Tree[0].Children[0].Children) != 1 || res.Tree[0].Children[0].Children[0].Label != "b" {
		t.Fatalf("tree: %+v %v", res, err)
	}
	if _, err := o.Runs(ctx, RunsQuery{Source: "mine"}); apperr.CodeOf(err) != apperr.CodeUsage || !strings.Contains(err.Error(), `invalid --source "mine"`) {
		t.Fatalf("bad source: %v", err)
	}
}

// Through a named gateway: the records kept for it on this machine (the
// run store send and wait use too); OpenClaw's registry is not reachable
// there (exit 10).
func TestRunsThroughAGateway(t *testing.T) {
	o, dir := fixtureOps(t, "state-2026.1.30", map[string]string{"OPENCLAW_GATEWAY_TOKEN": "tok"}, Config{Gateway: gatewaysel.Selector{URL: "ws://127.0.0.1:1"}})
	ctx := context.Background()
	rs, err := o.runStore()
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(rs.Dir(), dir) || !strings.Contains(rs.Dir(), "gateways") {
		t.Fatalf("run store of a gateway: %s", rs.Dir())
	}
	saveRuns(t, rs, &runs.Record{RunID: runs.NewID(), Kind: runs.KindSend, Status: runs.StatusOK, CreatedAt: 1})
	saveRuns(t, runs.Open(dir), &runs.Record{RunID: runs.NewID(), Kind: runs.KindSend, Status: runs.StatusOK, CreatedAt: 2})
	res, err := o.Runs(ctx, RunsQuery{Limit: -1})
	if err != nil || res.Count != 1 || res.Runs[0].CreatedAt != 1 {
		t.Fatalf("runs through the gateway: %+v %v", res, err)
	}
	if _, err := o.Runs(ctx, RunsQuery{Source: RunsSourceOpenClaw, Limit: -1}); apperr.CodeOf(err) != apperr.CodeState {
		t.Fatalf("openclaw source over a gateway: %v", err)
	}

	local, dir2 := fixtureOps(t, "state-2026.1.30", nil, Config{})
	if rs, err := local.runStore(); err != nil || !strings.HasPrefix(rs.Dir(), dir2) {
		t.Fatalf("local run store: %v %v", rs, err)
	}
}
