package cmdutil

import "github.com/spf13/cobra"

// RefArgs accepts the positional argument of a command that names one
// session by KEY | SESSION_ID | PREFIX, or none when the session is named by
// its label flag (named flag) instead.
func RefArgs(label *string, flag string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if *label != "" {
			return NoArgs(cmd, args)
		}
		return ExactArgs(1, "session KEY or SESSION_ID (or a sessionId prefix, or --"+flag+" L)")(cmd, args)
	}
}

// AddRefLabelFlag adds the flag (--label, or patch's --target-label) that
// names the session by its label instead of a positional reference, with
// label completion.
func AddRefLabelFlag(cmd *cobra.Command, f *Factory, p *string, name string) {
	cmd.Flags().StringVar(p, name, "", "the session with this `LABEL` instead of KEY (with --agent to pick the agent)")
	_ = cmd.RegisterFlagCompletionFunc(name, func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return f.Labels(toComplete)
	})
}
