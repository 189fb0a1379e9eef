// Package runscmd implements `sessions runs`, `sessions wait` and the hidden
// runner command.
package runscmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/output"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/spf13/cobra"
)

// DefaultLimit is how many runs `runs` shows without --limit.
const DefaultLimit = 50

// NewCmdRuns builds `sessions runs`.
func NewCmdRuns(f *cmdutil.Factory) *cobra.Command {
	var status, session, source string
	limit := cmdutil.Limit{N: DefaultLimit}
	var tree, sweep bool
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
		RunE: func(cmd *cobra.Command, args []string) (retErr error) {
			if err := limit.Check("limit"); err != nil {
				return err
			}
			if sweep {
				if tree || status != "" || session != "" || source != "" {
					return apperr.Usagef("--sweep takes no other runs flag")
				}
				return sweepNow(f)
			}
			switch source {
			case "":
				source = sourceSessions
				if tree {
					source = sourceAll
				}
			case sourceSessions, sourceOpenClaw, sourceAll:
			default:
				return apperr.Usagef("invalid --source %q (want %s)", source, strings.Join(sources, ", "))
			}
			now := f.Now()
			var ours, theirs []*runs.Record
			var failed *[]backend.HostError
			if eps, err := f.GatewayEndpoints(); err != nil {
				return err
			} else if len(eps) > 0 {
				if ours, failed, err = gatewayRuns(f, eps, source, tree, now); err != nil {
					return err
				}
			} else {
				s, err := f.State()
				if err != nil {
					return err
				}
				if source != sourceOpenClaw {
					if ours, err = ourRuns(runs.Open(s.Dir.Path), now); err != nil {
						return err
					}
				}
				if source != sourceSessions {
					theirs = runs.OpenClawRuns(s.Dir.Path, sqlitestore.Options{BusyTimeout: f.Flags.LockTimeout}, f.Warn)
				}
			}
			if failed != nil {
				// after the rows of the hosts that answered: a line each on
				// stderr, exit 1
				defer func() {
					if retErr == nil {
						retErr = cmdutil.ReportHostErrors(f, *failed)
					}
				}()
			}
			out := []*runs.Record{}
			total := 0
			for _, r := range runs.Merge(ours, theirs) {
				if status != "" && r.Status != status {
					continue
				}
				if session != "" && !matchSession(r, session) {
					continue
				}
				if tree && r.Kind != runs.KindSpawn {
					continue
				}
				total++
				if !limit.Reached(len(out)) {
					out = append(out, r)
				}
			}
			page := Page{Count: len(out), TotalCount: total, LimitApplied: limit.Applied(), HasMore: len(out) < total}
			what := "runs"
			if tree {
				what = "sub-agent runs"
			}
			// After the rows, where a person reading a terminal looks last.
			defer func() {
				if page.HasMore && f.IO.IsStderrTTY() {
					fmt.Fprintf(f.IO.ErrOut, "Showing %d of %d %s (--limit all for every one)\n", len(out), total, what)
				}
			}()
			if tree {
				roots := buildTree(out)
				if f.JSONMode() {
					return f.PrintJSON(TreeResult{Page: page, Tree: roots, Errors: failed})
				}
				if len(roots) == 0 {
					if f.IO.IsStdoutTTY() {
						fmt.Fprintln(f.IO.ErrOut, "No sub-agent runs found.")
					}
					return nil
				}
				printTree(f, f.IO.Out, roots, now)
				return nil
			}
			if f.JSONMode() {
				return f.PrintJSON(ListResult{Page: page, Runs: out, Errors: failed})
			}
			tty := f.IO.IsStdoutTTY()
			if len(out) == 0 {
				if tty {
					fmt.Fprintln(f.IO.ErrOut, "No runs found.")
				}
				return nil
			}
			// The run id is never cut (it is what wait takes); the session,
			// requester, label and summary shrink, then columns drop.
			hdr := []string{"Run", "Kind", "Status", "Engine", "Session", "Label", "From", "Created", "Summary"}
			if source != sourceSessions || failed != nil {
				hdr = append(hdr, "Source")
			}
			if failed != nil { // a fleet: whose runs
				hdr = append(hdr, "Context")
			}
			t := output.NewTable(hdr...).Flexible(4, 5, 6, 8).MinWidth(4, 24).Droppable(6, 9, 3, 5, 1, 8, 7)
			t.Color(2, f.IO.ColorScheme().Status)
			for _, r := range out {
				created := time.UnixMilli(r.CreatedAt).UTC().Format(time.RFC3339)
				if tty {
					created = cmdutil.Ago(now.Sub(time.UnixMilli(r.CreatedAt)))
				}
				row := []string{r.RunID, r.Kind, r.Status, engineName(r.Engine), targetOf(r), labelOf(r), requesterOf(r), created, runs.Summary(r), r.Source}
				if failed != nil {
					row = append(row, r.Context)
				}
				t.Row(row...)
			}
			return t.Render(f.IO.Out, tty, f.IO.TerminalWidth())
		},
	}
	cmdutil.EnumVar(cmd, &status, "status", "", "only runs with this status", runs.StatusAccepted, runs.StatusRunning, runs.StatusOK, runs.StatusError, runs.StatusTimeout)
	cmd.Flags().StringVar(&session, "session", "", "only runs involving this session `KEY` or sessionId")
	cmd.Flags().StringVar(&source, "source", "", "whose runs: sessions (ours, the default), openclaw (OpenClaw's sub-agent registry) or all (default of --tree)")
	cmd.Flags().Var(cmdutil.LimitFlag{L: &limit}, "limit", "at most `N` runs, or all")
	cmd.Flags().BoolVar(&tree, "tree", false, "show the spawn lineage: requesters and the sub-agents they spawned (ours and OpenClaw's)")
	cmd.Flags().BoolVar(&sweep, "sweep", false, "archive the sub-agent sessions that are due now, and report it")
	_ = cmd.RegisterFlagCompletionFunc("session", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return f.SessionKeys(toComplete)
	})
	_ = cmd.RegisterFlagCompletionFunc("limit", cmdutil.FixedCompletions("all"))
	_ = cmd.RegisterFlagCompletionFunc("source", cmdutil.FixedCompletions(sources...))
	return cmd
}

// Values of --source.
const (
	sourceSessions = runs.SourceSessions
	sourceOpenClaw = runs.SourceOpenClaw
	sourceAll      = "all"
)

var sources = []string{sourceSessions, sourceOpenClaw, sourceAll}

// Page is what a listing says about its completeness, as OpenClaw 2026.9's
// `openclaw sessions --json` does: the rows shown, the matching rows before
// the limit, the limit in force (null for --limit all) and whether rows
// were left out.
type Page struct {
	Count        int  `json:"count"`
	TotalCount   int  `json:"totalCount"`
	LimitApplied *int `json:"limitApplied"`
	HasMore      bool `json:"hasMore"`
}

// ListResult is the JSON document of `sessions runs`.
type ListResult struct {
	Page
	Runs []*runs.Record `json:"runs"`
	// Errors: the hosts that failed, over a fleet only.
	Errors *[]backend.HostError `json:"errors,omitempty"`
}

// TreeResult is the JSON document of `sessions runs --tree`.
type TreeResult struct {
	Page
	Tree   []*Node              `json:"tree"`
	Errors *[]backend.HostError `json:"errors,omitempty"`
}

func targetOf(r *runs.Record) string {
	if r.Target.DisplayKey != "" {
		return r.Target.DisplayKey
	}
	return r.Target.Key
}

func labelOf(r *runs.Record) string {
	if r.Spawn != nil {
		return r.Spawn.Label
	}
	return ""
}

// requesterOf is who started the run: the --as session as given, the
// requester agent's main session of a host operator's spawn, "" for a
// host operator's send.
func requesterOf(r *runs.Record) string {
	if r.Requester == nil {
		return ""
	}
	if r.Requester.DisplayKey != "" {
		return r.Requester.DisplayKey
	}
	return r.Requester.Key
}

func matchSession(r *runs.Record, s string) bool {
	for _, x := range []*runs.Session{&r.Target, r.Requester} {
		if x != nil && (x.Key == s || x.DisplayKey == s || (x.SessionID != "" && strings.EqualFold(x.SessionID, s))) {
			return true
		}
	}
	return false
}

// runsOf is where this invocation's runs are recorded: the home of the
// gateway it names (the runs send and spawn made through it), else the
// local state dir's.
func runsOf(f *cmdutil.Factory) (*runs.Store, error) { return f.Ops().RunStore() }

// engineName is the engine column: the spec without the openclaw path or
// the exec command ("openclaw", "exec").
func engineName(spec string) string {
	if i := strings.IndexByte(spec, ':'); i > 0 {
		return spec[:i]
	}
	return spec
}
