// Package wait implements `sessions wait`.
package wait

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `sessions wait`.
type Options struct {
	f       *cmdutil.Factory
	RunID   string
	Timeout int // seconds
}

// NewCmd builds `sessions wait RUN_ID`; runF replaces the behaviour in
// flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "wait RUN_ID [--timeout S]",
		Short: "Wait for a run's reply, with the same result as send",
		Long: `Wait until the run's first step has ended (the target's reply for a send) and
print the same result as 'sessions send' would have; its "delivery" is the
announce's delivery as the run record has it now: "pending" until the runner
has settled it, then skipped, recorded, delivered or failed (with "error").
A run whose runner died ends as "error: runner exited" at once. --timeout S
(default 30) bounds the wait (exit 5); the run itself goes on.`,
		Args: cmdutil.ExactArgs(1, "RUN_ID"),
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return f.RunIDs(toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Timeout < 1 {
				return apperr.Usagef("--timeout must be at least 1 second (got %d)", o.Timeout)
			}
			o.RunID = args[0]
			if runF != nil {
				return runF(o)
			}
			return run(cmd.Context(), o)
		},
	}
	cmd.Flags().IntVar(&o.Timeout, "timeout", 30, "wait up to `S` seconds")
	return cmd
}

func run(ctx context.Context, o *Options) error {
	f := o.f
	res, err := f.Ops().Wait(ctx, ops.WaitRequest{RunID: o.RunID, Timeout: time.Duration(o.Timeout) * time.Second, OnWait: f.WaitSpinner()})
	if err != nil {
		return err
	}
	return f.PrintRunResult(res)
}
