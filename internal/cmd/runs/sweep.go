package runs

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/ops"
)

// sweepNow is `sessions runs --sweep`: the sweep, with the usual lock
// timeout, and its report.
func sweepNow(ctx context.Context, o *Options) error {
	f := o.f
	rep, err := f.Ops().Sweep(ctx, ops.SweepRequest{})
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
