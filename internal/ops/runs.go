package ops

import (
	"context"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/rundoc"
	"github.com/openclaw/sessions/internal/runs"
)

// Values of RunsQuery.Source.
const (
	RunsSourceSessions = runs.SourceSessions // our send and spawn runs
	RunsSourceOpenClaw = runs.SourceOpenClaw // OpenClaw's own sub-agent registry
	RunsSourceAll      = "all"               // both, merged newest first
)

// RunsSources are the values of RunsQuery.Source.
var RunsSources = []string{RunsSourceSessions, RunsSourceOpenClaw, RunsSourceAll}

// RunsQuery is what a listing of runs asks for.
type RunsQuery struct {
	Status  string // only runs with this status ("": any)
	Session string // only runs involving this session key or sessionId
	// Source: whose runs (RunsSources); "": ours, or with Tree all.
	Source string
	// Tree: the spawn lineage — only spawn runs, grouped under their
	// requesters (RunsResult.Tree).
	Tree  bool
	Limit int // at most this many runs; < 0: all
}

// RunsPage is what a listing of runs says about its completeness
// (rundoc.Page).
type RunsPage = rundoc.Page

// RunsResult is the document of a listing of runs (`sessions runs
// --json`); with RunsQuery.Tree the document is RunsTree (TreeDocument).
type RunsResult struct {
	RunsPage
	Runs []*RunRecord `json:"runs"`
	// Errors: the hosts that failed, over a fleet only.
	Errors *[]HostError `json:"errors,omitempty"`

	// Tree is the spawn lineage of Runs (RunsQuery.Tree only).
	Tree []*RunNode `json:"-"`
	// Source is the source in force (the query's, or its default).
	Source string `json:"-"`
}

// RunsTree is the document of `sessions runs --tree --json`.
type RunsTree struct {
	RunsPage
	Tree   []*RunNode   `json:"tree"`
	Errors *[]HostError `json:"errors,omitempty"`
}

// TreeDocument is the document of a tree listing.
func (r *RunsResult) TreeDocument() RunsTree {
	return RunsTree{RunsPage: r.RunsPage, Tree: r.Tree, Errors: r.Errors}
}

// Runs lists the runs q asks for, newest first: ours (the send and spawn
// runs recorded in the state dir, a dead runner's run ended as it is
// seen), OpenClaw's sub-agent registry (RunsSourceOpenClaw, only ever
// read), or both. Through the gateway(s) the invocation selects they are
// the records kept on this machine for each gateway (a fleet: every row
// says its context, a failing host is in Errors).
func (o *Ops) Runs(ctx context.Context, q RunsQuery) (*RunsResult, error) {
	v, err := o.runs(ctx, q)
	return deliver(o, v, err)
}

// runs is Runs before the agent boundary.
func (o *Ops) runs(ctx context.Context, q RunsQuery) (*RunsResult, error) {
	switch q.Source {
	case "":
		q.Source = RunsSourceSessions
		if q.Tree {
			q.Source = RunsSourceAll
		}
	case RunsSourceSessions, RunsSourceOpenClaw, RunsSourceAll:
	default:
		return nil, apperr.Usagef("invalid --source %q (want %s)", q.Source, strings.Join(RunsSources, ", "))
	}
	listers, fleet, err := o.runListers()
	if err != nil {
		return nil, err
	}
	// OpenClaw's own sub-agent registry is a host's file: a host that
	// cannot read it (no RPC of 2026.1.30 or 2026.9.x lists it) is refused
	registry, canRegistry := listers[0].(backend.SubagentRegistry)
	if !canRegistry && (q.Source == RunsSourceOpenClaw || (q.Source == RunsSourceAll && !q.Tree)) {
		return nil, apperr.Statef("runs --source %s: OpenClaw's own sub-agent runs are not available over the gateway %s: no RPC of OpenClaw 2026.1.30 or 2026.9.x lists them; run `sessions runs --source %s` on that host", q.Source, listers[0], q.Source)
	}
	var ours, theirs []*runs.Record
	var failed *[]HostError
	if fleet {
		failed = &[]HostError{}
	}
	if q.Source != RunsSourceOpenClaw {
		for _, rl := range listers {
			recs, err := rl.Runs(ctx)
			if err != nil {
				if failed == nil {
					return nil, err
				}
				*failed = append(*failed, HostError{Context: rl.Where(), Error: err.Error(), Err: err})
				continue
			}
			if failed != nil {
				for _, r := range recs {
					r.Context = rl.Where()
				}
			}
			ours = runs.Merge(ours, recs)
		}
	}
	if canRegistry && q.Source != RunsSourceSessions {
		if theirs, err = registry.OpenClawRuns(ctx, o.cfg.LockTimeout); err != nil {
			return nil, err
		}
	}
	res := &RunsResult{Runs: []*RunRecord{}, Errors: failed, Source: q.Source}
	shown, total := runs.Select(runs.Merge(ours, theirs), runs.Filter{Status: q.Status, Session: q.Session, SpawnOnly: q.Tree, Limit: q.Limit})
	for _, r := range shown {
		res.Runs = append(res.Runs, runs.Doc(r))
	}
	res.RunsPage = RunsPage{Count: len(res.Runs), TotalCount: total, HasMore: len(res.Runs) < total}
	if q.Limit >= 0 {
		n := q.Limit
		res.LimitApplied = &n
	}
	if q.Tree {
		res.Tree = runs.NodeDocs(runs.Tree(shown))
	}
	return res, nil
}

// runListers are where this invocation's runs are listed from
// (hostset.Resolver.RunListers).
func (o *Ops) runListers() ([]backend.RunLister, bool, error) { return o.where.RunListers() }
