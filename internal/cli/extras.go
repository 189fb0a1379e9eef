package cli

import (
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmd/index"
	"github.com/openclaw/sessions/internal/cmd/locks"
	"github.com/openclaw/sessions/internal/cmd/topics"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/spf13/cobra"
)

// addExtras adds the operator commands, the help topics and the completion
// of the global flags.
func addExtras(root *cobra.Command, f *cmdutil.Factory) {
	root.AddCommand(locks.NewCmd(f, nil))
	root.AddCommand(index.NewCmd(f, nil))
	root.AddCommand(topics.NewCmds()...)
	root.SetHelpCommand(newHelpCmd())

	comp := func(fn func(string) ([]string, cobra.ShellCompDirective)) cobra.CompletionFunc {
		return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return fn(toComplete)
		}
	}
	_ = root.RegisterFlagCompletionFunc("agent", comp(f.AgentIDs))
	_ = root.RegisterFlagCompletionFunc("as", comp(f.SessionKeys))
	_ = root.RegisterFlagCompletionFunc("state-dir", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return nil, cobra.ShellCompDirectiveFilterDirs
	})
	_ = root.RegisterFlagCompletionFunc("config", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"json", "json5"}, cobra.ShellCompDirectiveFilterFileExt
	})
	_ = root.RegisterFlagCompletionFunc("profile", cobra.NoFileCompletions)

	// Commands that take --engine / --deliver like send (spawn) complete them
	// the same way, unless they register their own.
	for _, c := range root.Commands() {
		if c.Name() == "send" {
			continue
		}
		if c.Flags().Lookup("engine") != nil {
			_ = c.RegisterFlagCompletionFunc("engine", cmdutil.CompleteEngine)
		}
		if c.Flags().Lookup("deliver") != nil {
			_ = c.RegisterFlagCompletionFunc("deliver", cobra.FixedCompletions([]string{"exec:"}, cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace))
		}
	}
}

// newHelpCmd is cobra's help command, except that an unknown command or
// topic is a usage error (exit 2), and topics complete too.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND | TOPIC]",
		Short: "Help about any command or topic",
		Long: `Help about any command or topic. Topics: exit-codes, environment.

  sessions help history
  sessions help exit-codes`,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			parent, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, sub := range parent.Commands() {
				if sub.Hidden || sub.Name() == "help" || !strings.HasPrefix(sub.Name(), toComplete) {
					continue
				}
				if sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
					out = append(out, sub.Name()+"\t"+sub.Short)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				return apperr.Usagef("unknown help topic %q (run 'sessions help' for the commands and topics)", strings.Join(args, " "))
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}

// refuseLocalOnlyOverGateway: a command that is a host-only read
// (cmdutil.Factory.ReadsHost), given a gateway on the command line, is
// refused before anything runs: ops asks the invocation's host whether it
// can (ops.Ops.CanRead).
func refuseLocalOnlyOverGateway(f *cmdutil.Factory, cmd *cobra.Command) error {
	r, ok := f.HostRead(cmd)
	if !ok {
		return nil
	}
	return f.Ops().CanRead(r)
}
