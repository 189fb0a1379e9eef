package cmdutil

import (
	"fmt"
	"strings"

	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// CompleteEngine completes --engine (send, spawn): auto, provider,
// openclaw, gateway, or exec: followed by a command (no space after it).
func CompleteEngine(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, c := range []string{"auto\tgateway, else openclaw when found, else provider", "provider\tthe model provider openclaw.json configures (no tools)", "openclaw\ta real OpenClaw turn: openclaw agent --local", "gateway\ta real OpenClaw turn in the live gateway", "exec:\trun COMMAND with the request on stdin"} {
		if strings.HasPrefix(c, toComplete) && !strings.Contains(toComplete, "\t") {
			out = append(out, c)
		}
	}
	dir := cobra.ShellCompDirectiveNoFileComp
	if len(out) > 0 && strings.HasPrefix(out[len(out)-1], "exec:") {
		dir |= cobra.ShellCompDirectiveNoSpace // a command comes next
	}
	return out, dir
}

// WaitSpinner shows a spinner on stderr while an operation waits for a
// run's reply, when stderr and stdout are terminals (stdout too, as the
// spinner library that drew it before checked) and the output is not JSON
// (nil otherwise: nothing is shown). Its frame is white when stdout's
// output may be coloured (iostreams: NO_COLOR, CLICOLOR_FORCE, TERM=dumb).
func (f *Factory) WaitSpinner() ops.OnWait {
	if !f.IO.IsStderrTTY() || !f.IO.IsStdoutTTY() || f.JSONMode() {
		return nil
	}
	return func(target string) func() {
		sp := newSpinner(f.IO.ErrOut, " waiting for "+target, f.IO.ColorEnabled())
		sp.Start()
		return sp.Stop
	}
}

// PrintRunResult prints the result of send or wait: the run id of a run
// not waited for (and, on a terminal, how to follow it), else the reply.
func (f *Factory) PrintRunResult(res *ops.RunResult) error {
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	if res.Status == ops.RunAccepted {
		fmt.Fprintln(f.IO.Out, res.RunID)
		if f.IO.IsStderrTTY() {
			fmt.Fprintf(f.IO.ErrOut, "Accepted; follow with: sessions wait %s\n", res.RunID)
		}
		return nil
	}
	fmt.Fprintln(f.IO.Out, *res.Reply)
	return nil
}
