// Package reset implements `sessions reset`.
package reset

import (
	"context"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// Options are the parsed flags and argument of `sessions reset`.
type Options struct {
	f *cmdutil.Factory
	cmdutil.LifecycleFlags
	Key string
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "reset KEY|SESSION_ID",
		Short: "Start a session afresh as OpenClaw's sessions.reset does (new sessionId, old transcript kept)",
		Long: `Reset a session as OpenClaw's sessions.reset does: the entry is replaced, under
OpenClaw's store lock, by one with a new sessionId, updatedAt now, systemSent
and abortedLastRun false, token counters zeroed, and only the fields 1.30
keeps (thinkingLevel, verboseLevel, reasoningLevel, responseUsage, model,
contextTokens, sendPolicy, label, origin, lastChannel, lastTo,
skillsSnapshot). The old transcript stays where it is (sessions doctor reports
it as an orphan later; --fix renames it). The next turn writes the new
sessionId's transcript. A session with a live run is refused unless --force
waited for it. On a 2026.8+ SQLite store reset needs the gateway (exit 10
without one): OpenClaw 2026.9.6's reset keeps the sessionId and sets a new
lifecycleRevision, so newSessionId is the same id there.

` + cmdutil.LifecycleGatewayNote + cmdutil.LifecycleJSONShape,
		Example: `  sessions reset main --dry-run --json
  sessions reset agent:main:telegram:group:-100123`,
		Args:              cmdutil.ExactArgs(1, "session KEY or SESSION_ID"),
		ValidArgsFunction: cmdutil.CompleteSessionArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Key = args[0]
			if runF != nil {
				return runF(o)
			}
			return run(cmd.Context(), o)
		},
	}
	o.Register(cmd)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	res, err := o.f.Ops().Reset(ctx, ops.ResetRequest{Key: o.Key, DryRun: o.DryRun, Force: o.Force})
	if err != nil {
		return err
	}
	return cmdutil.PrintLifecycle(o.f, res)
}
