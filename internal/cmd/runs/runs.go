// Package runs implements `sessions runs`.
package runs

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cells"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/output"
	"github.com/spf13/cobra"
)

// DefaultLimit is how many runs `runs` shows without --limit.
const DefaultLimit = 50

// Options are the parsed flags of `sessions runs`.
type Options struct {
	f       *cmdutil.Factory
	Status  string
	Session string
	Source  string
	Limit   cmdutil.Limit
	Tree    bool
	Sweep   bool
}

// NewCmd builds `sessions runs`; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f, Limit: cmdutil.Limit{N: DefaultLimit}}
	cmd := &cobra.Command{
		Use:   "runs [flags]",
		Short: "List send and spawn runs, newest first",
		Long: `List the runs recorded under <state>/sessions-cli/runs — the send and spawn
runs of this tool, source "sessions", the ones 'sessions wait' takes — newest
first: their id, kind, status (accepted, running, ok, error, timeout),
session (the target of a send, the child of a spawn), label, requester, age,
and the reply, outcome or error. A run whose runner died is ended as
"error: runner exited" when seen.

--source openclaw lists instead the sub-agent runs of OpenClaw's own registry
(source "openclaw": <state>/subagents/runs.json, and for OpenClaw 2026.8+ the
subagent_runs table of <state>/state/openclaw.sqlite; only ever read), and
--source all both, merged newest first.

--tree shows the spawn lineage: each requester session with the sub-agent
children it spawned (label, status, outcome, age, run id, source) indented
below — ours and OpenClaw's alike unless --source says otherwise.

--limit N (default 50) or --limit all. When runs are left out, the JSON says
so (totalCount, hasMore) and a terminal gets "Showing N of M runs" on stderr.

--sweep archives now the sub-agent children whose archive time has come
(agents.defaults.subagents.archiveAfterMinutes after their creation; every
sessions command does this in passing) and reports what it did.

JSON (--json): {"count":N,"totalCount":M,"limitApplied":L,"hasMore":B,
"runs":[record...]}, each record as stored plus "source"; limitApplied is null
with --limit all. With --tree {"count","totalCount","limitApplied","hasMore",
"tree":[{"sessionKey","children":[{"sessionKey","runId","label","status",
"outcome","createdAt","source","children":[…]}]}]}; with --sweep
{"archived":[{"runId","childSessionKey","existed","renamed"}],"deferred":[…],
"pending":N,"nextAtMs"}.
Piped: runId, kind, status, session, label, requester, createdAt (RFC 3339),
summary, source.`,
		Example: `  sessions runs
  sessions runs --tree
  sessions runs --status running --limit all
  sessions runs --source openclaw --jq '.runs[] | [.runId, .status, .spawn.label] | @tsv'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Limit.Check("limit"); err != nil {
				return err
			}
			if o.Sweep && (o.Tree || o.Status != "" || o.Session != "" || o.Source != "") {
				return apperr.Usagef("--sweep takes no other runs flag")
			}
			if runF != nil {
				return runF(o)
			}
			if o.Sweep {
				return sweepNow(cmd.Context(), o)
			}
			return run(cmd.Context(), o)
		},
	}
	cmdutil.EnumVar(cmd, &o.Status, "status", "", "only runs with this status", ops.RunStatuses...)
	cmd.Flags().StringVar(&o.Session, "session", "", "only runs involving this session `KEY` or sessionId")
	cmd.Flags().StringVar(&o.Source, "source", "", "whose runs: sessions (ours, the default), openclaw (OpenClaw's sub-agent registry) or all (default of --tree)")
	cmd.Flags().Var(cmdutil.LimitFlag{L: &o.Limit}, "limit", "at most `N` runs, or all")
	cmd.Flags().BoolVar(&o.Tree, "tree", false, "show the spawn lineage: requesters and the sub-agents they spawned (ours and OpenClaw's)")
	cmd.Flags().BoolVar(&o.Sweep, "sweep", false, "archive the sub-agent sessions that are due now, and report it")
	_ = cmd.RegisterFlagCompletionFunc("session", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return f.SessionKeys(toComplete)
	})
	_ = cmd.RegisterFlagCompletionFunc("limit", cmdutil.FixedCompletions("all"))
	_ = cmd.RegisterFlagCompletionFunc("source", cmdutil.FixedCompletions(ops.RunsSources...))
	return cmd
}

func run(ctx context.Context, o *Options) error {
	f := o.f
	res, err := f.Ops().Runs(ctx, ops.RunsQuery{Status: o.Status, Session: o.Session, Source: o.Source, Tree: o.Tree, Limit: o.Limit.Max()})
	if err != nil {
		return err
	}
	what := "runs"
	if o.Tree {
		what = "sub-agent runs"
	}
	if o.Tree {
		err = printTree(f, res)
	} else {
		err = printRuns(f, res)
	}
	if err != nil {
		return err
	}
	// After the rows, where a person reading a terminal looks last.
	if res.HasMore && f.IO.IsStderrTTY() {
		fmt.Fprintf(f.IO.ErrOut, "Showing %d of %d %s (--limit all for every one)\n", res.Count, res.TotalCount, what)
	}
	if res.Errors != nil {
		// after the rows of the hosts that answered: a line each on
		// stderr, exit 1
		return cmdutil.ReportHostErrors(f, *res.Errors)
	}
	return nil
}

func printRuns(f *cmdutil.Factory, res *ops.RunsResult) error {
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	tty := f.IO.IsStdoutTTY()
	if len(res.Runs) == 0 {
		if tty {
			fmt.Fprintln(f.IO.ErrOut, "No runs found.")
		}
		return nil
	}
	fleet := res.Errors != nil
	// The run id is never cut (it is what wait takes); the session,
	// requester, label and summary shrink, then columns drop.
	hdr := []string{"Run", "Kind", "Status", "Engine", "Session", "Label", "From", "Created", "Summary"}
	if res.Source != ops.RunsSourceSessions || fleet {
		hdr = append(hdr, "Source")
	}
	if fleet { // whose runs
		hdr = append(hdr, "Context")
	}
	t := output.NewTable(hdr...).Flexible(4, 5, 6, 8).MinWidth(4, 24).Droppable(6, 9, 3, 5, 1, 8, 7)
	t.Color(2, f.IO.ColorScheme().Status)
	now := f.Now()
	for _, r := range res.Runs {
		created := time.UnixMilli(r.CreatedAt).UTC().Format(time.RFC3339)
		if tty {
			created = cells.Ago(now.Sub(time.UnixMilli(r.CreatedAt)))
		}
		row := []string{r.RunID, r.Kind, r.Status, engineName(r.Engine), targetOf(r), labelOf(r), requesterOf(r), created, ops.RunSummary(r), r.Source}
		if fleet {
			row = append(row, r.Context)
		}
		t.Row(row...)
	}
	return t.Render(f.IO.Out, tty, f.IO.TerminalWidth())
}

func targetOf(r *ops.RunRecord) string {
	if r.Target.DisplayKey != "" {
		return r.Target.DisplayKey
	}
	return r.Target.Key
}

func labelOf(r *ops.RunRecord) string {
	if r.Spawn != nil {
		return r.Spawn.Label
	}
	return ""
}

// requesterOf is who started the run: the --as session as given, the
// requester agent's main session of a host operator's spawn, "" for a
// host operator's send.
func requesterOf(r *ops.RunRecord) string {
	if r.Requester == nil {
		return ""
	}
	if r.Requester.DisplayKey != "" {
		return r.Requester.DisplayKey
	}
	return r.Requester.Key
}

// engineName is the engine column: the spec without the openclaw path or
// the exec command ("openclaw", "exec").
func engineName(spec string) string {
	if i := strings.IndexByte(spec, ':'); i > 0 {
		return spec[:i]
	}
	return spec
}
