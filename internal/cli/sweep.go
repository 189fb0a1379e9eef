package cli

import (
	"context"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// noSweep are the commands that never sweep: they must stay instant and
// side-effect free (help, completion, version), are the runner itself, or
// report due sub-agents themselves (doctor: read-only unless --fix;
// metrics: a scrape reads only).
var noSweep = map[string]bool{
	"__complete": true, "__completeNoDesc": true, "completion": true,
	"help": true, "version": true, ops.RunnerCommand: true, "doctor": true,
	"metrics": true, // a scrape never writes
}

// autoSweep archives the sub-agent children whose archive time has come
// (ops.Sweep, automatic: there is no daemon, so every invocation does it).
// When nothing is due it costs one read of the small archive index; it
// never fails the command.
func autoSweep(f *cmdutil.Factory, cmd *cobra.Command) {
	if cmd == nil || noSweep[cmd.Name()] || (cmd.Parent() != nil && noSweep[cmd.Parent().Name()]) {
		return
	}
	if fl := cmd.Flags().Lookup("sweep"); fl != nil && fl.Changed {
		return // `runs --sweep` does it itself, and reports it
	}
	_, _ = f.Ops().Sweep(context.Background(), ops.SweepRequest{Auto: true})
}
