// Package show implements `sessions show`: one session, all of it — every
// field of its store entry as stored, and what is derived from the rest of
// the state: kind, channel, transcript, messages, tokens, model, lineage,
// whether an OpenClaw run is busy on it right now, and its runs.
package show

import (
	"context"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `sessions show`.
type Options struct {
	f     *cmdutil.Factory
	Ref   string
	Label string
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "show {KEY | SESSION_ID | PREFIX | --label L [--agent A]} [flags]",
		Short: "Everything about one session: its entry, transcript, lineage, lock and runs",
		Long: `Show one session: every field of its store entry exactly as stored (unknown
fields included), and what is derived from the rest of the state — its kind,
channel and agent; its transcript (path, size, message count, first and last
message time; OpenClaw 2026.8+ keeps it in the SQLite store, without a file);
model and tokens; lineage (the session that spawned it, the sessions it
spawned); whether an OpenClaw run holds its transcript lock right now (pid,
age); and its runs: sessions' own send/spawn runs that target it or that it
requested, and OpenClaw's sub-agent runs (subagents/runs.json) it is the
child or the requester of.

The session is named by its key, its sessionId, a unique sessionId prefix
(8+ hex digits) or --label L [--agent A]. Nothing is written. A whole
sessionId no session has any more shows its orphan transcript (one a /new
reset or a crash left behind, that no entry points to): "orphan": true, no
key, kind, store or entry, and "belongedTo" the key it was a transcript of
when that is known. A session's earlier transcripts that can be attributed to
it (orphans a later transcript names, .reset/.deleted copies of its sessionId
or named by a later transcript, 2026.8+ windows before the current one, 2026.9
archives kept under its key) are listed in "earlierTranscripts", newest first.

JSON (--json): {"key","storeKey","agentId","kind","channel","sessionId",
"label","displayName","updatedAt","era","store","model","tokens",
"transcript":{"path","exists","bytes","messages","firstMessageAt",
"lastMessageAt"},"orphan","belongedTo","earlierTranscripts":[{"sessionId",
"path","archive","messages","source"}],"lineage":{"spawnedBy","children"},
"busy","lock","runs":[…],"entry"} (times in ms since the epoch; orphan,
belongedTo and earlierTranscripts only when there is one).
Piped: one "field<TAB>value" line per value of that document, nested fields
as dotted paths (transcript.messages, entry.deliveryContext.channel,
lineage.children.0), times (…At fields) in RFC 3339.

Over several gateways (--context all, or --context repeated) every host is
asked at once: {"sessions":[…one document per host that has the session,
each with "context"],"count","errors":[{"context","error"}]}; a host that
fails is in "errors" and on stderr (exit 1), none having it is exit 4.`,
		Example: `  sessions show main
  sessions show 26a610b5
  sessions show --label build-stats --json
  sessions show main --jq '.transcript.messages'
  sessions show main | awk -F'\t' '$1 == "transcript.path" { print $2 }'`,
		Args:              cmdutil.RefArgs(&o.Label, "label"),
		ValidArgsFunction: cmdutil.CompleteSessionArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				o.Ref = args[0]
			}
			if runF != nil {
				return runF(o)
			}
			return run(cmd.Context(), o)
		},
	}
	cmdutil.AddRefLabelFlag(cmd, f, &o.Label, "label")
	return cmd
}

// Result is the JSON document of `sessions show`.
type Result = ops.ShowResult

// FleetResult is the JSON document of `show` over several gateways.
type FleetResult = ops.ShowFleetResult

// run shows the session where the invocation works: the local state dir,
// one gateway, or every host of a fleet (a host that fails is reported
// beside the others' documents, exit 1).
func run(ctx context.Context, o *Options) error {
	f := o.f
	shown, err := f.Ops().Show(ctx, ops.ShowQuery{Ref: o.Ref, Label: o.Label})
	if err != nil {
		return err
	}
	if shown.Fleet != nil {
		if err := o.printFleet(shown.Fleet); err != nil {
			return err
		}
		return cmdutil.ReportHostErrors(f, shown.Fleet.Errors)
	}
	return o.print(shown.Session)
}

func (o *Options) print(res *Result) error {
	f := o.f
	now := f.Now()
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	if f.IO.IsStdoutTTY() {
		return printTTY(f, res, now)
	}
	return printTSV(f.IO.Out, res)
}
