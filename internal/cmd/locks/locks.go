// Package locks implements `sessions locks`: who holds which lock on a live
// host — OpenClaw's store and transcript locks under the state dir, and the
// runner locks of our own runs.
package locks

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/output"
	"github.com/spf13/cobra"
)

// Options are the parsed flags.
type Options struct {
	f *cmdutil.Factory
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "locks",
		Short: "List the locks held under the state dir: holder pid, age, alive",
		Long: `List the locks held right now under the state dir, oldest first, without
touching any of them:

  store       sessions.json.lock, OpenClaw's store lock (stale after 30 s)
  transcript  <sessionId>.jsonl.lock, OpenClaw's session write lock, held while
              an agent turn writes the transcript (stale after 30 min)
  runner      the flock a sessions runner holds on its run for its whole life

For each: the session it guards, the holder's pid (from the lock's payload, or
/proc/locks for runners), how long it has been held, whether that pid is alive
on this host, and whether OpenClaw would evict it as stale. A lock held by a
dead pid, or a stale one, is evicted by the next writer; nothing here removes
it. A lock path that is not a regular file (a FIFO, a symlink, a directory) is
listed with its type and never opened; sessions doctor explains it.

JSON (--json): {"count":N,"locks":[{"kind","path","agentId","sessionKey",
"runId","pid","since","ageSeconds","alive","stale","type"}...]} (since in ms;
type only for a lock path that is not a regular file).
Piped: kind, session key (or run id), pid, since (RFC 3339), alive, stale, path.`,
		Example: `  sessions locks
  sessions locks --jq '.locks[] | select(.alive | not) | .path'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o)
			}
			return run(cmd.Context(), o)
		},
	}
	f.ReadsHost(cmd, ops.ReadLocks)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	f := o.f
	res, err := f.Ops().Locks(ctx)
	if err != nil {
		return err
	}
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	io := f.IO
	tty := io.IsStdoutTTY()
	if len(res.Locks) == 0 {
		if tty {
			fmt.Fprintln(io.ErrOut, "No locks held.")
		}
		return nil
	}
	cs := io.ColorScheme()
	yesNo := func(b bool) string {
		if tty {
			if b {
				return "yes"
			}
			return "no"
		}
		return strconv.FormatBool(b)
	}
	if !tty {
		t := output.NewTable()
		for _, l := range res.Locks {
			t.Row(l.Kind, cmp.Or(l.SessionKey, l.RunID), pidStr(l.PID), rfc3339(l.Since), yesNo(l.Alive), yesNo(l.Stale), l.Path)
		}
		return t.Render(io.Out, false, 0)
	}
	t := output.NewTable("Kind", "Session", "PID", "Held", "Alive", "Stale", "Path").Flexible(1, 6)
	t.Color(4, func(s string) string {
		if s == "no" {
			return cs.Red(s)
		}
		return cs.Green(s)
	})
	t.Color(5, func(s string) string {
		if s == "yes" {
			return cs.Yellow(s)
		}
		return s
	})
	for _, l := range res.Locks {
		who := l.SessionKey
		if who == "" && l.RunID != "" {
			who = "run " + l.RunID
		}
		t.Row(l.Kind, who, pidStr(l.PID), held(time.Duration(l.AgeSeconds)*time.Second), yesNo(l.Alive), yesNo(l.Stale), l.Path)
	}
	return t.Render(io.Out, true, io.TerminalWidth())
}

func pidStr(pid int) string {
	if pid <= 0 {
		return "?"
	}
	return strconv.Itoa(pid)
}

func rfc3339(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format(time.RFC3339)
}

// held is a short duration: 12s, 4m10s, 3h2m, 2d3h.
func held(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours()/24), int(d.Hours())%24)
}
