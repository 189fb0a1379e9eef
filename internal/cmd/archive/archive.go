// Package archive implements `sessions archive`.
package archive

import (
	"context"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// Options are the parsed flags and argument of `sessions archive`.
type Options struct {
	f *cmdutil.Factory
	cmdutil.LifecycleFlags
	Key string
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "archive KEY|SESSION_ID",
		Short: "Archive a session (2026.8+: archivedAt, as OpenClaw's archive; JSON era: as 1.30 archives sub-agents)",
		Long: `Archive a session.

On a 2026.8+ SQLite store with no OpenClaw process holding the state dir it is
OpenClaw 2026.9.6's archive: the session stays, with archivedAt = now and
archiveReason "manual" (its pin dropped), hidden from OpenClaw's default
listings; written directly, in one transaction, only on agent schema 23 (else
exit 10, as when a gateway or an agent run holds the state dir — then use
OpenClaw's web UI or its gateway). --dry-run checks all that and writes
nothing.

A JSON-era store (OpenClaw 2026.7 and earlier) has no archived state: there
it does what 1.30's sub-agent archiving does — sessions.delete, the entry
removed under the store lock and the transcript renamed <file>.deleted.<time>.

Every agent's main session is refused ("Cannot archive an agent's main
session."), and a session with a live run unless --force waited for it.

` + cmdutil.LifecycleGatewayNote + cmdutil.LifecycleJSONShape + ` archivedAt is set on 2026.8+ stores.`,
		Example: `  sessions archive agent:main:hook:github:push-42 --dry-run --json
  sessions archive agent:main:telegram:group:-100123`,
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
	res, err := o.f.Ops().Archive(ctx, ops.ArchiveRequest{Key: o.Key, DryRun: o.DryRun, Force: o.Force})
	if err != nil {
		return err
	}
	return cmdutil.PrintLifecycle(o.f, res)
}
