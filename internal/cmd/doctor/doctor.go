// Package doctor implements `sessions doctor`: what is wrong with the state
// dir, what it means and the exact command that fixes it; --fix repairs what
// is safe without OpenClaw. The checks live in internal/doctor.
package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	dr "github.com/openclaw/sessions/internal/doctor"
	"github.com/openclaw/sessions/internal/output"
	"github.com/spf13/cobra"
)

// Result is the JSON document.
type Result struct {
	Status   string       `json:"status"` // "ok" (nothing left to act on) | "error"
	Error    string       `json:"error,omitempty"`
	StateDir string       `json:"stateDir"`
	Fix      bool         `json:"fix"`
	Fixed    int          `json:"fixed"`
	Counts   dr.Counts    `json:"counts"`
	Findings []dr.Finding `json:"findings"`
}

// Options are the parsed flags.
type Options struct {
	f   *cmdutil.Factory
	Fix bool
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
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
PRAGMA quick_check, rows with entry_valid != 1, legacy files beside the
database, leftover import archives); our own runs whose runner died, outbox
announces never delivered, sub-agents past their archive time.

--fix repairs, each under OpenClaw's own lock: locks of dead holders removed,
orphan transcripts renamed <file>.deleted.<time> (never deleted), dead runs
ended, due sub-agents archived. It never rewrites a corrupt store and never
writes a 2026.8+ SQLite database; everything else is left for the command
each finding names.

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
		RunE: func(cmd *cobra.Command, args []string) error { return run(o) },
	}
	cmd.Flags().BoolVar(&o.Fix, "fix", false, "repair what is safe without OpenClaw (stale locks, orphans, dead runs, due sub-agents)")
	return cmd
}

// unreadable are the checks that make the exit code 10.
var unreadable = map[string]bool{"store.unreadable": true, "store.corrupt": true, "sqlite.unreadable": true}

func run(o *Options) error {
	f := o.f
	s, err := f.State()
	if err != nil {
		return err
	}
	if !s.Req.Operator() {
		return apperr.Forbiddenf("sessions doctor is for the host operator: it reads every agent's state (run it without --as and OPENCLAW_SESSION_KEY)")
	}
	now := f.Now()
	snap := dr.Collect(s, now, dr.Limits{})
	findings := dr.Check(snap, s.GlobalScope())
	res := Result{Status: "ok", StateDir: s.Dir.Path, Fix: o.Fix, Findings: findings}
	if o.Fix {
		dr.Fix(context.Background(), s, res.Findings, now, dr.FixOptions{LockTimeout: f.Flags.LockTimeout})
		for _, x := range res.Findings {
			if x.Fixed != "" {
				res.Fixed++
			}
		}
	}
	if res.Findings == nil {
		res.Findings = []dr.Finding{}
	}
	res.Counts = dr.Count(res.Findings)
	var outcome *apperr.Error
	for _, x := range res.Findings {
		if x.Fixed == "" && unreadable[x.Check] {
			outcome = apperr.Statef("%s cannot be read (%s); %s", x.Path, x.Check, summary(res.Counts))
			break
		}
	}
	if outcome == nil && dr.Open(res.Findings) {
		outcome = apperr.Errorf("%s", summary(res.Counts))
	}
	if outcome != nil {
		res.Status, res.Error = "error", outcome.Error()
	}
	if err := print(f, &res, snapSize(snap)); err != nil {
		return err
	}
	if outcome != nil {
		return outcome.AfterOutput()
	}
	return nil
}

func summary(c dr.Counts) string {
	s := fmt.Sprintf("%d error(s), %d warning(s) left", c.Errors, c.Warnings)
	if c.Fixable > 0 {
		s += fmt.Sprintf("; %d fixable with %s", c.Fixable, dr.FixCommand)
	}
	return s
}

func snapSize(snap *dr.Snapshot) string {
	sessions, files := 0, 0
	for _, a := range snap.Agents {
		if a.Store != nil {
			sessions += len(a.Store.Entries)
		}
		files += len(a.Transcripts)
	}
	return fmt.Sprintf("%d agent(s), %d session entries, %d transcript file(s)", len(snap.Agents), sessions, files)
}

func print(f *cmdutil.Factory, res *Result, size string) error {
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
			fmt.Fprintf(io.ErrOut, "No problems found in %s (%s).\n", res.StateDir, size)
			return nil
		}
		return t.Render(io.Out, false, 0)
	}
	if len(res.Findings) == 0 {
		fmt.Fprintf(io.Out, "No problems found in %s (%s).\n", res.StateDir, size)
		return nil
	}
	cs := io.ColorScheme()
	for _, x := range res.Findings {
		sev := x.Severity
		switch sev {
		case dr.SevError:
			sev = cs.Red(sev)
		case dr.SevWarning:
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
		line += fmt.Sprintf("; %d fixable: %s", c.Fixable, dr.FixCommand)
	}
	fmt.Fprintln(io.Out, strings.TrimSpace(line))
	return nil
}
