// Package wait implements `sessions wait`.
package wait

import (
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmd/send"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/spf13/cobra"
)

// NewCmd builds `sessions wait RUN_ID`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var timeout int
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
			if timeout < 1 {
				return apperr.Usagef("--timeout must be at least 1 second (got %d)", timeout)
			}
			rs, err := runsOf(f)
			if err != nil {
				return err
			}
			rec, err := rs.Load(strings.TrimSpace(args[0]))
			if err != nil {
				return err
			}
			return send.WaitAndPrint(f, rs, rec, time.Duration(timeout)*time.Second)
		},
	}
	cmd.Flags().IntVar(&timeout, "timeout", 30, "wait up to `S` seconds")
	return cmd
}

// runsOf is where this invocation's runs are recorded: the home of the
// gateway it names (the runs send and spawn made through it), else the
// local state dir's.
func runsOf(f *cmdutil.Factory) (*runs.Store, error) {
	ep, err := send.NamedGateway(f)
	if err != nil {
		return nil, err
	}
	if ep != nil {
		home, err := runs.GatewayHome(f.Getenv, ep.URL, false)
		if err != nil {
			return nil, err
		}
		f.Log.Debug("runs through the gateway "+ep.String()+" are kept in "+home, "gateway", ep.String())
		return runs.Open(home), nil
	}
	s, err := f.State()
	if err != nil {
		return nil, err
	}
	return runs.Open(s.Dir.Path), nil
}
