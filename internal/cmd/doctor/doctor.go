// Package doctor implements `sessions doctor`: what is wrong with the state
// dir, what it means and the exact command that fixes it; --fix repairs what
// is safe without OpenClaw. The checks live in internal/doctor.
package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/output"
	"github.com/spf13/cobra"
)

// Options are the parsed flags.
type Options struct {
	f   *cmdutil.Factory
	Fix bool
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the state dir: locks, stores, transcripts, SQLite, runs; --fix what is safe",
		Long: `Check an OpenClaw state dir and sessions' own state beside it, read-only. Each
finding has a severity (error, warning, info), the path, what it means and the
exact command that fixes it — ours, or OpenClaw's own where only OpenClaw may
do it (openclaw doctor --fix on a 2026.8+ store, openclaw gateway call
sessions.delete/reset/compact on a JSON-era one).

Checked: OpenClaw's store and transcript locks (dead holders, past the stale
limits, live holders and for how long; a lock path that is a FIFO, a symlink or
a directory is reported and never opened); sessions.json (unreadable, corrupt,
JSON5, values that are not objects, entries without a sessionId, reserved keys,
duplicate labels); transcripts (missing, orphans no entry points to, empty or
without a header, corrupt and torn lines with the first line number, broken
parentId chains, outside the state dir or under a legacy ~/.clawdbot/.moltbot
path, oversized files and lines); 2026.8+ SQLite stores (schema version,
PRAGMA quick_check, rows with entry_valid != 1, a -wal larger than the
database and over 64 MiB, a database over 1 GiB and its largest tables,
inline base64 media in transcript events, a write lock held right now —
with the processes holding the database open, from /proc on Linux — a
legacy sessions.json beside the database compared entry by entry, JSONL
transcripts the database does not hold, leftover import archives); our own
runs whose runner died, outbox announces never delivered, sub-agents past
their archive time; the search index's cache dir (another user's or not a
directory, not writable, almost full, a corrupt index that cannot be rebuilt
there: info, search then scans; see sessions index). A transcript unchanged
since the last doctor (size and mtime, on Linux inode and ctime too; written
more than a few seconds before) is not read again: what its scan found is kept in the user's cache dir
($XDG_CACHE_HOME/sessions/doctor; counts, never transcript text).

--fix repairs, each under OpenClaw's own lock: locks of dead holders removed,
orphan transcripts renamed <file>.deleted.<time> (never deleted), dead runs
ended, due sub-agents archived, a legacy sessions.json whose every entry the
2026.8+ database holds moved aside to sessions.json.migrated-<time>.bak
(only while no OpenClaw process holds the state dir). It never rewrites a
corrupt store and never writes a 2026.8+ SQLite database; everything else is
left for the command each finding names (OpenClaw's own where only OpenClaw
may act, e.g. openclaw doctor --session-sqlite import
--session-sqlite-all-agents for entries the database lacks).

Exit: 0 nothing to act on (info findings may remain), 1 errors or warnings
left, 10 the state dir or a session store cannot be read.
JSON: {"status","stateDir","fix","fixed","counts":{"errors","warnings","infos",
"fixable"},"findings":[{"severity","check","path","agentId","sessionKey",
"message","fix","fixable","fixed","fixError"}]} ("error" when exit is not 0).
Piped: severity, check, session key, path, fix, message — one finding a line.`,
		Example: `  sessions doctor
  sessions doctor --fix
  sessions doctor --jq '.findings[] | select(.severity=="error") | .fix'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o)
			}
			return run(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.Fix, "fix", false, "repair what is safe without OpenClaw (stale locks, orphans, dead runs, due sub-agents, a migrated legacy sessions.json)")
	f.ReadsHost(cmd, ops.ReadDoctor)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	f := o.f
	res, err := f.Ops().Doctor(ctx, ops.DoctorRequest{Fix: o.Fix})
	if err != nil {
		return err
	}
	if err := print(f, res); err != nil {
		return err
	}
	return res.Outcome
}

func print(f *cmdutil.Factory, res *ops.DoctorResult) error {
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	io := f.IO
	if !io.IsStdoutTTY() {
		t := output.NewTable()
		for _, x := range res.Findings {
			fix := x.Fix
			if x.Fixed != "" {
				fix = "fixed: " + x.Fixed
			}
			t.Row(x.Severity, x.Check, x.SessionKey, x.Path, fix, x.Message)
		}
		if len(res.Findings) == 0 {
			fmt.Fprintf(io.ErrOut, "No problems found in %s (%s).\n", res.StateDir, res.Size)
			return nil
		}
		return t.Render(io.Out, false, 0)
	}
	if len(res.Findings) == 0 {
		fmt.Fprintf(io.Out, "No problems found in %s (%s).\n", res.StateDir, res.Size)
		return nil
	}
	cs := io.ColorScheme()
	for _, x := range res.Findings {
		sev := x.Severity
		switch sev {
		case ops.DoctorSevError:
			sev = cs.Red(sev)
		case ops.DoctorSevWarning:
			sev = cs.Yellow(sev)
		}
		who := x.Path
		if x.SessionKey != "" {
			who = x.SessionKey + "  " + x.Path
		}
		fmt.Fprintf(io.Out, "%s %s  %s\n  %s\n", sev, x.Check, who, x.Message)
		switch {
		case x.Fixed != "":
			fmt.Fprintf(io.Out, "  fixed: %s\n", x.Fixed)
		case x.FixError != "":
			fmt.Fprintf(io.Out, "  fix failed: %s\n  fix: %s\n", x.FixError, x.Fix)
		default:
			fmt.Fprintf(io.Out, "  fix: %s\n", x.Fix)
		}
	}
	c := res.Counts
	line := fmt.Sprintf("%d error(s), %d warning(s), %d info", c.Errors, c.Warnings, c.Infos)
	if res.Fixed > 0 {
		line = fmt.Sprintf("%d fixed; ", res.Fixed) + line
	}
	if c.Fixable > 0 {
		line += fmt.Sprintf("; %d fixable: %s", c.Fixable, ops.DoctorFixCommand)
	}
	fmt.Fprintln(io.Out, strings.TrimSpace(line))
	return nil
}
