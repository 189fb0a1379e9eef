// Package runscmd implements `sessions runs`, `sessions wait` and the hidden
// runner command.
package runscmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmd/send"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/output"
	"github.com/openclaw/sessions/internal/runner"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/spf13/cobra"
)

// NewCmdRuns builds `sessions runs`.
func NewCmdRuns(f *cmdutil.Factory) *cobra.Command {
	var status, session string
	var limit int
	var tree, sweep bool
	cmd := &cobra.Command{
		Use:   "runs [flags]",
		Short: "List send and spawn runs, newest first",
		Long: `List the runs recorded under <state>/sessions-cli/runs: their id, kind, status
(accepted, running, ok, error, timeout), session (the target of a send, the
child of a spawn), label, requester, age, and the reply, outcome or error. A
run whose runner died is ended as "error: runner exited" when seen.

--tree shows the spawn lineage instead: each requester session with the
sub-agent children it spawned (label, status, outcome, run id) indented below.

--sweep archives now the sub-agent children whose archive time has come
(agents.defaults.subagents.archiveAfterMinutes after their creation; every
sessions command does this in passing) and reports what it did.

JSON (--json): {"count":N,"runs":[record...]}, each record as stored; with
--tree {"count":N,"tree":[{"sessionKey","children":[{"sessionKey","runId",
"label","status","outcome","createdAt","children":[…]}]}]}; with --sweep
{"archived":[{"runId","childSessionKey","existed","renamed"}],"deferred":[…],
"pending":N,"nextAtMs"}.
Piped: runId, kind, status, session, label, requester, createdAt (RFC 3339),
summary.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.IntRange("limit", limit, 1, 0); err != nil {
				return err
			}
			if sweep {
				if tree || status != "" || session != "" {
					return apperr.Usagef("--sweep takes no other runs flag")
				}
				return sweepNow(f)
			}
			s, err := f.State()
			if err != nil {
				return err
			}
			rs := runs.Open(s.Dir.Path)
			all, err := rs.List()
			if err != nil {
				return err
			}
			out := []*runs.Record{}
			now := f.Now()
			for _, r := range all {
				if r, err = rs.Reap(r, now); err != nil {
					return err
				}
				if status != "" && r.Status != status {
					continue
				}
				if session != "" && !matchSession(r, session) {
					continue
				}
				out = append(out, r)
				if len(out) == limit {
					break
				}
			}
			if tree {
				roots := buildTree(out)
				if f.JSONMode() {
					return f.PrintJSON(map[string]any{"count": len(out), "tree": roots})
				}
				printTree(f, f.IO.Out, roots, now)
				return nil
			}
			if f.JSONMode() {
				return f.PrintJSON(map[string]any{"count": len(out), "runs": out})
			}
			tty := f.IO.IsStdoutTTY()
			if len(out) == 0 {
				if tty {
					fmt.Fprintln(f.IO.ErrOut, "No runs found.")
				}
				return nil
			}
			t := output.NewTable("Run", "Kind", "Status", "Engine", "Session", "Label", "From", "Created", "Summary").Flexible(4, 6, 8)
			t.Color(2, f.IO.ColorScheme().Status)
			for _, r := range out {
				created := time.UnixMilli(r.CreatedAt).UTC().Format(time.RFC3339)
				if tty {
					created = cmdutil.Ago(now.Sub(time.UnixMilli(r.CreatedAt)))
				}
				t.Row(r.RunID, r.Kind, r.Status, engineName(r.Engine), targetOf(r), labelOf(r), requesterOf(r), created, runs.Summary(r))
			}
			return t.Render(f.IO.Out, tty, f.IO.TerminalWidth())
		},
	}
	cmdutil.EnumVar(cmd, &status, "status", "", "only runs with this status", runs.StatusAccepted, runs.StatusRunning, runs.StatusOK, runs.StatusError, runs.StatusTimeout)
	cmd.Flags().StringVar(&session, "session", "", "only runs involving this session `KEY` or sessionId")
	cmd.Flags().IntVar(&limit, "limit", 50, "at most `N` runs")
	cmd.Flags().BoolVar(&tree, "tree", false, "show the spawn lineage: requesters and the sub-agents they spawned")
	cmd.Flags().BoolVar(&sweep, "sweep", false, "archive the sub-agent sessions that are due now, and report it")
	_ = cmd.RegisterFlagCompletionFunc("session", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return f.SessionKeys(toComplete)
	})
	return cmd
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

// NewCmdWait builds `sessions wait RUN_ID`.
func NewCmdWait(f *cmdutil.Factory) *cobra.Command {
	var timeout int
	cmd := &cobra.Command{
		Use:   "wait RUN_ID [--timeout S]",
		Short: "Wait for a run's reply, with the same result as send",
		Long: `Wait until the run's first step has ended (the target's reply for a send) and
print the same result as 'sessions send' would have. A run whose runner died
ends as "error: runner exited" at once. --timeout S (default 30) bounds the
wait (exit 5); the run itself goes on.`,
		Args: cmdutil.ExactArgs(1, "RUN_ID"),
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return f.RunIDs(toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if timeout < 1 {
				return apperr.Usagef("--timeout must be at least 1 second (got %d)", timeout)
			}
			s, err := f.State()
			if err != nil {
				return err
			}
			rs := runs.Open(s.Dir.Path)
			rec, err := rs.Load(strings.TrimSpace(args[0]))
			if err != nil {
				return err
			}
			return send.WaitAndPrint(f, rs, rec, time.Duration(timeout)*time.Second)
		},
	}
	cmd.Flags().IntVar(&timeout, "timeout", 30, "wait up to `S` seconds")
	return cmd
}

// NewCmdRunner builds the hidden command a detached runner executes.
func NewCmdRunner(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:    runner.CommandName + " RUN_ID",
		Hidden: true,
		Args:   cmdutil.ExactArgs(1, "RUN_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := f.State()
			if err != nil {
				return err
			}
			// The runner outlives its caller: SIGHUP (a closed terminal) must not
			// end it; SIGTERM/SIGINT cancel the current turn cleanly.
			signal.Ignore(syscall.SIGHUP)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			r := &runner.Runner{State: s, Runs: runs.Open(s.Dir.Path), Log: f.Log, Now: f.Now, LockTimeout: f.Flags.LockTimeout}
			return r.Execute(ctx, args[0])
		},
	}
}

// engineName is the engine column: the spec without the openclaw path or
// the exec command ("openclaw", "exec").
func engineName(spec string) string {
	if i := strings.IndexByte(spec, ':'); i > 0 {
		return spec[:i]
	}
	return spec
}
