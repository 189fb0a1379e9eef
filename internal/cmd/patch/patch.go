// Package patch implements `sessions patch`: OpenClaw's sessions.patch for
// the fields a script or an operator sets on a session (send policy,
// label), written safely beside a live OpenClaw (store.Update).
package patch

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `sessions patch`.
type Options struct {
	f          *cmdutil.Factory
	Ref        string
	SendPolicy string // "", allow, deny, inherit
	Label      string
	SetLabel   bool
	ClearLabel bool
	// TargetLabel names the session by its label (--target-label), with
	// --agent to pick the agent, instead of Ref.
	TargetLabel string
	// WaitIdle > 0: wait up to this long for an OpenClaw run holding the
	// session's transcript lock to end before writing (--wait-idle).
	WaitIdle time.Duration
	// Settle is how long to wait, after such a run released the lock, for
	// its end-of-turn store write (DefaultSettle; tests shorten it).
	Settle time.Duration
}

// DefaultWaitIdle is --wait-idle without a value.
const DefaultWaitIdle = 60 * time.Second

// DefaultSettle bounds the wait, after a run released its transcript
// lock, for OpenClaw's end-of-turn write of the store.
const DefaultSettle = ops.DefaultPatchSettle

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f, Settle: DefaultSettle}
	cmd := &cobra.Command{
		Use:   "patch {KEY | SESSION_ID | PREFIX | --target-label L [--agent A]} [flags]",
		Short: "Change a session's send policy or label",
		Long: `Change fields of a session entry in sessions.json, as OpenClaw's sessions.patch
does, safely beside a live OpenClaw: under OpenClaw's own store lock, re-reading
the store inside it, changing only this entry (every other entry and every
unknown field kept), and replacing the file atomically (mode 0600).

--send-policy allow|deny sets the session's send policy override; inherit
removes it (the configured session.sendPolicy applies again). --label sets the
label (trimmed, 1-64 characters on a 2026.7-and-earlier agent, 1-512 on a
2026.8+ one as OpenClaw 2026.9.6 allows, unique within the agent's store); --clear-label
removes it. updatedAt becomes max(updatedAt, now).

The session is named by its key, its sessionId, a unique sessionId prefix (8+
hex digits) or --target-label L [--agent A] (--label is the new label).

Through the gateway: with --gateway URL, --context NAME, $OPENCLAW_GATEWAY_URL
or a current context, the session is found with the gateway's sessions.list
and changed with its own sessions.patch (no local state dir needed; --as,
--wait-idle and several contexts are refused). An OpenClaw 2026.8+ (SQLite)
agent whose gateway is live on this host is patched through that gateway with
the config's credentials (--log-level debug says so). A token without the
operator.admin scope OpenClaw 1.30 needs is exit 3.

OpenClaw undoes a change made while it runs a turn on the session: when the
turn ends it rewrites the entry from the copy it took when the turn started.
When a live process holds the session's transcript lock (an agent turn is
running), patch warns that the change may be overwritten; --wait-idle[=D]
(default 60s; give a duration as --wait-idle=D) waits for the turn to end
and for OpenClaw to record it, then writes. Still busy after D: exit 5,
nothing written.

On OpenClaw 2026.8+ state the entry is patched in the agent's SQLite store as
2026.9.6's sessions.patch does, when no OpenClaw process holds the state dir
(else exit 10 naming its pid: use --gateway); a session with an active run
is refused there.

A corrupt store is refused with exit 10,
a lock held past --lock-timeout with exit 11.

JSON (--json): {"ok":true,"key","path","entry","warnings"} with the entry as
written; warnings only when there is one.`,
		Example: `  sessions patch main --send-policy deny
  sessions patch agent:main:telegram:group:-100123 --label standup --json
  sessions patch 26a610b5-ea74-4c48-bd74-9be14f7f2944 --send-policy inherit --clear-label
  sessions patch 26a610b5 --label alice
  sessions patch --target-label build-stats --label ci-stats --wait-idle=30s`,
		Args:              cmdutil.RefArgs(&o.TargetLabel, "target-label"),
		ValidArgsFunction: cmdutil.CompleteSessionArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.Ref = args[0]
			}
			if o.WaitIdle < 0 {
				return apperr.Usagef("--wait-idle must not be negative")
			}
			o.SetLabel = cmd.Flags().Changed("label")
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return run(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	cmdutil.EnumVar(cmd, &o.SendPolicy, "send-policy", "", "send policy override (inherit removes the override)", "allow", "deny", "inherit")
	fl.StringVar(&o.Label, "label", "", "set the session's `LABEL` (1-64 characters; 1-512 on a 2026.8+ agent; unique in the store)")
	fl.BoolVar(&o.ClearLabel, "clear-label", false, "remove the session's label")
	cmdutil.AddRefLabelFlag(cmd, f, &o.TargetLabel, "target-label")
	fl.DurationVar(&o.WaitIdle, "wait-idle", 0, "first wait up to `DURATION` (--wait-idle=D; default 60s) for an OpenClaw turn running on the session to end")
	fl.Lookup("wait-idle").NoOptDefVal = DefaultWaitIdle.String()
	return cmd
}

func (o *Options) validate() error {
	q := o.request()
	if err := q.Validate(); err != nil {
		return err
	}
	o.Label = q.Label
	return nil
}

func (o *Options) request() ops.PatchRequest {
	return ops.PatchRequest{Ref: o.Ref, TargetLabel: o.TargetLabel, SendPolicy: o.SendPolicy,
		SetLabel: o.SetLabel, Label: o.Label, ClearLabel: o.ClearLabel, WaitIdle: o.WaitIdle, Settle: o.Settle}
}

func run(ctx context.Context, o *Options) error {
	f := o.f
	q := o.request()
	q.OnWaitIdle = func(msg string) { fmt.Fprintln(f.IO.ErrOut, msg) }
	res, err := f.Ops().Patch(ctx, q)
	if err != nil {
		return err
	}
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	fmt.Fprintf(f.IO.Out, "patched %s: %s\n", res.DisplayKey, o.describe())
	return nil
}

func (o *Options) describe() string {
	var parts []string
	if o.SendPolicy != "" {
		parts = append(parts, "sendPolicy="+o.SendPolicy)
	}
	if o.SetLabel {
		parts = append(parts, fmt.Sprintf("label=%q", o.Label))
	}
	if o.ClearLabel {
		parts = append(parts, "label cleared")
	}
	return strings.Join(parts, ", ")
}
