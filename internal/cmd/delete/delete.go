// Package delete implements `sessions delete`.
package delete

import (
	"context"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// Options are the parsed flags and arguments of `sessions delete`.
type Options struct {
	f *cmdutil.Factory
	cmdutil.LifecycleFlags
	Keys           []string
	KeepTranscript bool
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "delete KEY|SESSION_ID...",
		Short: "Delete sessions as OpenClaw's sessions.delete does (transcripts renamed .deleted.<time>)",
		Long: `Delete sessions as OpenClaw's sessions.delete does: each entry is removed from
sessions.json under OpenClaw's store lock (every other entry kept byte for
byte) and its transcript renamed <file>.deleted.<time> — never deleted
(--keep-transcript leaves it). Refused before anything is written: the main
session ("Cannot delete the main session (<key>)."), and a session with a live
run (OpenClaw's transcript lock held by a live pid, or one of our runs going)
unless --force waited for it to end. Several keys are deleted in one store
update per store.

` + cmdutil.LifecycleGatewayNote + `On a 2026.8+ SQLite store (no OpenClaw process holding the state dir; agent
schema 23, else exit 10) it is OpenClaw 2026.9.6's sessions.delete with
deleteTranscript false, written directly, one transaction per session: the
session disappears from every listing, its row kept as OpenClaw's
placeholder over the transcript, which stays in the database (OpenClaw's
own transcript archive is written by its workers; use its gateway for
that). Nothing is renamed there, so "transcripts" is empty.

` + cmdutil.LifecycleJSONShape,
		Example: `  sessions delete agent:main:cron:9ebf7d12-92f8-4cd4-baed-e342d2ef4f39 --dry-run
  sessions delete agent:main:hook:github:push-42 agent:main:telegram:group:-100123 --json`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: cmdutil.CompleteSessionArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Keys = args
			if runF != nil {
				return runF(o)
			}
			return run(cmd.Context(), o)
		},
	}
	o.Register(cmd)
	cmd.Flags().BoolVar(&o.KeepTranscript, "keep-transcript", false, "leave the transcripts where they are")
	return cmd
}

func run(ctx context.Context, o *Options) error {
	res, err := o.f.Ops().Delete(ctx, ops.DeleteRequest{Keys: o.Keys, DryRun: o.DryRun, Force: o.Force, KeepTranscript: o.KeepTranscript})
	if err != nil {
		return err
	}
	return cmdutil.PrintLifecycle(o.f, res)
}
