package runscmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/runner"
	"github.com/spf13/cobra"
)

// autoSweepLockTimeout bounds the automatic sweep's waits for the index
// flock and OpenClaw's store lock: a busy lock is simply retried by the
// next invocation.
const autoSweepLockTimeout = 150 * time.Millisecond

// noSweep are the commands that never sweep: they must stay instant and
// side-effect free (help, completion, version), are the runner itself, or
// report due sub-agents themselves (doctor: read-only unless --fix).
var noSweep = map[string]bool{
	"__complete": true, "__completeNoDesc": true, "completion": true,
	"help": true, "version": true, runner.CommandName: true, "doctor": true,
}

// AutoSweep archives the sub-agent children whose archive time has come
// (agents.defaults.subagents.archiveAfterMinutes; there is no daemon, so
// every invocation does it). When nothing is due it costs one read of the
// small archive index. It never fails the command: problems are logged at
// debug level (a busy lock) or as a warning, and retried next time.
func AutoSweep(f *cmdutil.Factory, cmd *cobra.Command) {
	if cmd == nil || noSweep[cmd.Name()] || (cmd.Parent() != nil && noSweep[cmd.Parent().Name()]) {
		return
	}
	if fl := cmd.Flags().Lookup("sweep"); fl != nil && fl.Changed {
		return // `runs --sweep` does it itself, and reports it
	}
	s, err := f.State()
	if err != nil {
		return // the command reports it
	}
	due, err := archive.Due(s.Dir.Path, f.Now())
	if err != nil {
		f.Log.Warn("archive sweep skipped", "err", err)
		return
	}
	if !due {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rep, err := archive.Sweep(ctx, s, f.Now(), archive.SweepOptions{LockTimeout: autoSweepLockTimeout})
	if err != nil {
		f.Log.Debug("archive sweep deferred", "err", err)
		return
	}
	for _, a := range rep.Archived {
		f.Log.Debug("archived sub-agent session", "key", a.ChildKey, "run", a.RunID, "renamed", strings.Join(a.Renamed, ","))
	}
	for _, d := range rep.Deferred {
		f.Log.Debug("archive deferred", "key", d.ChildKey, "run", d.RunID, "reason", d.Reason)
	}
}

// sweepNow is `sessions runs --sweep`: the sweep, with the usual lock
// timeout, and its report.
func sweepNow(f *cmdutil.Factory) error {
	s, err := f.State()
	if err != nil {
		return err
	}
	rep, err := archive.Sweep(context.Background(), s, f.Now(), archive.SweepOptions{LockTimeout: f.Flags.LockTimeout})
	if err != nil {
		return err
	}
	if f.JSONMode() {
		return f.PrintJSON(rep)
	}
	for _, a := range rep.Archived {
		renamed := "no transcript"
		if len(a.Renamed) > 0 {
			renamed = strings.Join(a.Renamed, ", ")
		}
		if !a.Existed {
			renamed = "already gone"
		}
		fmt.Fprintf(f.IO.Out, "archived\t%s\t%s\t%s\n", a.ChildKey, a.RunID, renamed)
	}
	for _, d := range rep.Deferred {
		fmt.Fprintf(f.IO.Out, "deferred\t%s\t%s\t%s\n", d.ChildKey, d.RunID, d.Reason)
	}
	if f.IO.IsStderrTTY() {
		next := ""
		if rep.NextAtMs > 0 {
			next = "; next due " + time.UnixMilli(rep.NextAtMs).Local().Format(time.RFC3339)
		}
		fmt.Fprintf(f.IO.ErrOut, "%d archived, %d deferred, %d pending%s\n", len(rep.Archived), len(rep.Deferred), rep.Pending, next)
	}
	return nil
}
