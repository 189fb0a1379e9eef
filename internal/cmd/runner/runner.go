// Package runner implements the hidden command a detached runner executes.
package runner

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// Options are the arguments of the runner command.
type Options struct {
	f     *cmdutil.Factory
	RunID string
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
			return run(o)
		},
	}
}

func run(o *Options) error {
	// The runner outlives its caller: SIGHUP (a closed terminal) must not
	// end it; SIGTERM/SIGINT cancel the current turn cleanly.
	signal.Ignore(syscall.SIGHUP)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return o.f.Ops().ExecuteRun(ctx, o.RunID)
}
