package cmdutil

import (
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/spf13/cobra"
)

// KindsUsage is the help of a --kinds flag that selects sessions.
const KindsUsage = "only these kinds, comma-separated: main,group,cron,hook,node,other"

// KindsFlag registers --kinds on cmd into p, with the kinds as its
// completion; ParseKinds reads the value.
func KindsFlag(cmd *cobra.Command, p *string, usage string) {
	cmd.Flags().StringVar(p, "kinds", "", usage)
	_ = cmd.RegisterFlagCompletionFunc("kinds", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return keys.Kinds, cobra.ShellCompDirectiveNoFileComp
	})
}

// ParseKinds reads a --kinds value: session kinds, comma-separated, any
// case, empty items skipped. An unknown kind is a usage error naming the
// kinds there are.
func ParseKinds(s string) ([]string, error) {
	kinds, bad := keys.CleanKinds(strings.Split(s, ","))
	if bad != "" {
		return nil, apperr.Usagef("invalid --kinds value %q (want %s)", bad, strings.Join(keys.Kinds, ","))
	}
	return kinds, nil
}
