// Package runner implements the hidden command a detached runner executes.
package runner

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	runnerpkg "github.com/openclaw/sessions/internal/runner"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/spf13/cobra"
)

// NewCmd builds the hidden command a detached runner executes.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:    runnerpkg.CommandName + " RUN_ID",
		Hidden: true,
		Args:   cmdutil.ExactArgs(1, "RUN_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The runner outlives its caller: SIGHUP (a closed terminal) must not
			// end it; SIGTERM/SIGINT cancel the current turn cleanly.
			signal.Ignore(syscall.SIGHUP)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return f.Ops().ExecuteRun(ctx, args[0])
		},
	}
}
