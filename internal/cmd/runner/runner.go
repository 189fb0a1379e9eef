// Package runner implements the hidden command a detached runner executes.
package runner

import (
	"context"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// Options are the arguments of the runner command.
type Options struct {
	f     *cmdutil.Factory
	RunID string

	cmdContext context.Context // cmd.Context(): ends on SIGINT/SIGTERM (cli.Main)
}

// NewCmd builds the hidden command a detached runner executes; runF
// replaces the behaviour in tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	return &cobra.Command{
		Use:    ops.RunnerCommand + " RUN_ID",
		Hidden: true,
		Args:   cmdutil.ExactArgs(1, "RUN_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.RunID = args[0]
			if runF != nil {
				return runF(o)
			}
			o.cmdContext = cmd.Context()
			return run(o)
		},
	}
}

func run(o *Options) error {
	// The runner outlives its caller: SIGHUP (a closed terminal) must not
	// end it; SIGTERM/SIGINT cancel the current turn cleanly.
	o.f.Detached()
	o.f.GracefulSignals()
	return o.f.Ops().ExecuteRun(cmdutil.OrBackground(o.cmdContext), o.RunID)
}
