package cmdutil

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/output"
	"github.com/spf13/cobra"
)

// LifecycleJSONShape documents the JSON of delete, reset, archive and
// prune in their help.
const LifecycleJSONShape = `JSON (the same with --dry-run, "dryRun" aside): {"action","dryRun","count","bytes",
"sessions":[{"key","agentId","sessionId","newSessionId","updatedAt","kind",
"transcripts","bytes","kept"}],"skipped":[{"key","reason"}]} — transcripts are
the new names (<file>.deleted.<time>), bytes their size.`

// LifecycleGatewayNote documents, in the help of delete, reset and
// archive, when they go through a gateway.
const LifecycleGatewayNote = `Over a gateway: when one is selected (--gateway, --context,
$OPENCLAW_GATEWAY_URL, the current context) or an agent keeps a 2026.8+ SQLite
store and this host's gateway for the state dir is live (its lock names a live
process, or its configured port answers; --log-level debug says so), the write is the gateway's own RPC (sessions.delete, sessions.reset,
archive as sessions.patch {archived} on 2026.9.x) with the same JSON;
--dry-run then calls no writing RPC.

`

// LifecycleFlags are the flags every lifecycle command has.
type LifecycleFlags struct {
	DryRun bool
	Force  bool
}

// Register adds --dry-run and --force to cmd.
func (c *LifecycleFlags) Register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&c.DryRun, "dry-run", false, "print what would be done, change nothing")
	cmd.Flags().BoolVar(&c.Force, "force", false, "wait up to 15 s for a live run on the session to end instead of refusing")
}

// PrintLifecycle prints the result of delete, reset, archive or prune:
// the JSON document, tab-separated lines when piped, sentences on a
// terminal.
func PrintLifecycle(f *Factory, res *ops.LifecycleResult) error {
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	verb := map[string]string{"delete": "deleted", "reset": "reset", "prune": "deleted", "archive": "archived"}[res.Action]
	if res.DryRun {
		verb = "would be " + verb
	}
	io := f.IO
	if !io.IsStdoutTTY() {
		t := output.NewTable()
		for _, it := range res.Sessions {
			t.Row(res.Action, it.Key, it.SessionID, it.NewSessionID, strconv.FormatInt(it.Bytes, 10), strings.Join(it.Transcripts, ","), strconv.FormatBool(res.DryRun))
		}
		for _, sk := range res.Skipped {
			t.Row("skipped", sk.Key, "", "", "0", sk.Reason, strconv.FormatBool(res.DryRun))
		}
		return t.Render(io.Out, false, 0)
	}
	for _, it := range res.Sessions {
		line := fmt.Sprintf("%s %s", verb, it.Key)
		if it.NewSessionID != "" {
			line += fmt.Sprintf(": sessionId %s → %s", it.SessionID, it.NewSessionID)
		}
		for _, tr := range it.Transcripts {
			line += "\n  transcript → " + tr
		}
		fmt.Fprintln(io.Out, line)
	}
	for _, sk := range res.Skipped {
		fmt.Fprintf(io.Out, "skipped %s: %s\n", sk.Key, sk.Reason)
	}
	if res.Action == "prune" || res.Count > 1 {
		fmt.Fprintf(io.Out, "%d session(s) %s, %d bytes of transcripts moved aside, %d skipped\n", res.Count, verb, res.Bytes, len(res.Skipped))
	}
	return nil
}
