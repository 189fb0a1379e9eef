// Package prune implements `sessions prune`.
package prune

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `sessions prune`.
type Options struct {
	f *cmdutil.Factory
	cmdutil.LifecycleFlags
	OlderThan time.Duration
	Kinds     []string
	AllAgents bool
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	var yes bool
	var older, kinds string
	cmd := &cobra.Command{
		Use:   "prune --older-than DUR (--dry-run | --yes)",
		Short: "Delete every session not updated for a while (never a main session)",
		Long: `Delete, as sessions delete does, every session of the agent (--agent, or
--all-agents) last updated more than --older-than ago (e.g. 720h, 30d, 90m),
only of --kinds when given; never a main session, never one with a live run
(both listed under "skipped"). An entry updated meanwhile is left alone (the
age is checked again under the store lock). --dry-run shows what would go and
the bytes of transcripts that would be moved aside; --yes does it.

` + cmdutil.LifecycleJSONShape,
		Example: `  sessions prune --older-than 30d --dry-run
  sessions prune --older-than 30d --kinds cron,hook --all-agents --yes --json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.DryRun == yes {
				return apperr.Usagef("give exactly one of --dry-run or --yes")
			}
			d, err := ParseAge(older)
			if err != nil {
				return apperr.Usagef("invalid --older-than %q: %v", older, err)
			}
			o.OlderThan = d
			if kinds != "" {
				for _, k := range strings.Split(kinds, ",") {
					k = strings.TrimSpace(k)
					if !keys.IsKind(k) {
						return apperr.Usagef("invalid --kinds value %q (want %s)", k, strings.Join(keys.Kinds, ","))
					}
					o.Kinds = append(o.Kinds, k)
				}
			}
			if runF != nil {
				return runF(o)
			}
			return run(cmd.Context(), o)
		},
	}
	o.Register(cmd)
	cmd.Flags().BoolVar(&yes, "yes", false, "really delete")
	cmd.Flags().BoolVar(&o.AllAgents, "all-agents", false, "every agent, not only --agent")
	cmd.Flags().StringVar(&older, "older-than", "", "last updated more than `DUR` ago (required; 90m, 48h, 30d)")
	cmd.Flags().StringVar(&kinds, "kinds", "", "only these kinds, comma-separated: main,group,cron,hook,node,other")
	_ = cmd.MarkFlagRequired("older-than")
	return cmd
}

func run(ctx context.Context, o *Options) error {
	res, err := o.f.Ops().Prune(ctx, ops.PruneRequest{OlderThan: o.OlderThan, Kinds: o.Kinds, AllAgents: o.AllAgents, DryRun: o.DryRun, Force: o.Force})
	if err != nil {
		return err
	}
	return cmdutil.PrintLifecycle(o.f, res)
}

// ParseAge is a Go duration, or N followed by d (days); positive.
func ParseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.ParseFloat(n, 64)
		if err != nil {
			return 0, fmt.Errorf("want a duration such as 90m, 48h or 30d")
		}
		d = time.Duration(days * float64(24*time.Hour))
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("want a duration such as 90m, 48h or 30d")
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("must be positive")
	}
	return d, nil
}
