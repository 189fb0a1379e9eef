// Package watch implements `sessions watch`.
package watch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
)

// Options are the parsed flags of `sessions watch`.
type Options struct {
	f          *cmdutil.Factory
	Kinds      []string
	AllAgents  bool
	NoMessages bool
	Runs       bool
	// Context ends the watch when done (tests); nil: until SIGINT/SIGTERM
	// or a closed stdout.
	Context context.Context
	// Ready is called once the feed watches (tests).
	Ready func()

	cmdContext context.Context // cmd.Context(): ends on SIGINT/SIGTERM (cli.Main)
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	var kinds string
	cmd := &cobra.Command{
		Use:   "watch [flags]",
		Short: "Print each change to the sessions as it happens",
		Long: `Print one line per change to the sessions 'list' shows — a session added,
updated (which fields), removed, a message appended to its transcript, and with
--runs a run of ours changing status — as it happens, until interrupted. What
exists when it starts is not printed: 'sessions list' shows that.

The scope is list's: the requester's agent (or --agent ID, or --all-agents),
--kinds, and --context NAME|all over gateways.

Where it learns of changes: on the JSON era, file events on the session store
and the transcripts (then only the changed store is read again and only the
appended lines of the changed transcripts); on the SQLite era (OpenClaw 2026.8+)
the store's files, checked four times a second, and only when they changed the
sessions whose updated_at moved and the new transcript events (read-only, as
every reader here); over a
gateway, its event stream (sessions.changed, session.message, chat and agent
events), after which its sessions are listed again. A change shows within a
second of OpenClaw's write.

It ends with exit 0 on Ctrl-C or SIGTERM, and when nobody reads its output any
more (a closed pipe: 'sessions watch --json | head -1').

Text: one line per event — time, kind, key, then what changed:
  12:03:04 updated  main  totalTokens,updatedAt
  12:03:05 message  main  assistant: Hello…
  12:03:09 added    agent:main:subagent:…  other
  12:03:10 run      main  send 5f0c…  done

JSON (--json): one object per line (NDJSON): {"kind","time","context"
(--context all only),"agentId","key"} and, by kind, "fields" and "session" (the
row as 'list --json' prints it) for added/updated, "message" {"role","id",
"text"} (the first 120 characters on one line, masked like history's when
masking is on), "run" {"runId","status","kind"}. --jq filters each line.`,
		Example: `  sessions watch
  sessions watch --all-agents --json
  sessions watch --json --jq 'select(.kind=="message") | .message.text'
  sessions watch --context all --no-messages
  sessions watch --runs --kinds main,group`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if o.Kinds, err = cmdutil.ParseKinds(kinds); err != nil {
				return err
			}
			if o.AllAgents && f.Flags.Agent != "" {
				return apperr.Usagef("--agent and --all-agents cannot be used together")
			}
			if err := f.PrepareJQ(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			o.cmdContext = cmd.Context()
			return run(o)
		},
	}
	fl := cmd.Flags()
	cmdutil.KindsFlag(cmd, &kinds, cmdutil.KindsUsage)
	fl.BoolVar(&o.AllAgents, "all-agents", false, "watch the sessions of every agent")
	fl.BoolVar(&o.NoMessages, "no-messages", false, "no message events (sessions only)")
	fl.BoolVar(&o.Runs, "runs", false, "also the status changes of our send and spawn runs")
	return cmd
}

func run(o *Options) error {
	f := o.f
	ctx := o.Context
	if ctx == nil {
		ctx = cmdutil.OrBackground(o.cmdContext)
		// ends on SIGINT/SIGTERM with exit 0; a closed pipe is a write
		// error (EPIPE) rather than the signal that would kill the process
		f.GracefulSignals()
		f.PipeErrors()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if closed := f.IO.OutClosed(); closed != nil {
		go func() {
			select {
			case <-closed:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	ready := func() {
		if f.IO.IsStderrTTY() {
			fmt.Fprintln(f.IO.ErrOut, "Watching for changes (Ctrl-C to stop)")
		}
		if o.Ready != nil {
			o.Ready()
		}
	}
	err := f.Ops().Watch(ctx, ops.WatchQuery{Kinds: o.Kinds, AllAgents: o.AllAgents, Messages: !o.NoMessages, Runs: o.Runs}, ready,
		func(ev ops.WatchEvent) error {
			if f.JSONMode() {
				return f.PrintJSONLine(ev)
			}
			_, err := fmt.Fprintln(f.IO.Out, Line(ev))
			return err
		})
	if errors.Is(err, syscall.EPIPE) {
		return nil // the reader went: done
	}
	return err
}

// Line is an event as one line of text.
func Line(ev ops.WatchEvent) string {
	key := ev.Key
	if ev.Context != "" {
		key = ev.Context + "/" + key
	}
	var what string
	switch ev.Kind {
	case ops.EventUpdated:
		what = strings.Join(ev.Fields, ",")
	case ops.EventAdded:
		if ev.Session != nil {
			what = ev.Session.Kind
			if ev.Session.Label != "" {
				what += "  " + ev.Session.Label
			}
		}
	case ops.EventMessage:
		if m := ev.Message; m != nil {
			what = m.Role + ": " + m.Text
		}
	case ops.EventRun:
		if r := ev.Run; r != nil {
			what = strings.TrimSpace(r.Kind + " " + r.ID + "  " + r.Status)
		}
	}
	return strings.TrimRight(fmt.Sprintf("%s %-8s %s  %s", ev.Time.Local().Format("15:04:05"), ev.Kind, key, what), " ")
}
