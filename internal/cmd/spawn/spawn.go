// Package spawn implements `sessions spawn`: OpenClaw's sessions_spawn
// (ops.Spawn). The child session is created, a run is recorded, and a
// detached runner performs the sub-agent's task, the announce back to the
// requester, the cleanup; the command returns as soon as the child exists
// and its runner is started.
package spawn

import (
	"context"
	"fmt"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `sessions spawn`.
type Options struct {
	f          *cmdutil.Factory
	Task       string
	Label      string
	Model      string
	Thinking   string
	RunTimeout int
	Cleanup    string
	Engine     string
	OpenClaw   string
	Deliver    string
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "spawn TASK [flags]",
		Short: "Spawn a background sub-agent run and announce its result to the requester",
		Long: `Spawn a sub-agent, as OpenClaw's sessions_spawn does, without a gateway: a new
session agent:<agent>:subagent:<uuid> is created (spawnedBy = the requester,
--label, the model override), and a detached runner performs the task on it
with OpenClaw's sub-agent context as extra system prompt. The command returns
at once with the run id and the child's key; it never waits for the task.

When the task ends (or --run-timeout S aborts it), the announce step runs on
the child; unless it answers exactly ANNOUNCE_SKIP, the announce
  Status: completed successfully | timed out | failed: <error>
  Result: <the child's reply>
  Notes: <what the announce step added, if anything>
  Stats: runtime … • tokens … • est $… • sessionKey … • sessionId … • transcript …
is delivered to the requester's channel (recorded in the outbox, sent through
--deliver exec:COMMAND) and written into the requester's transcript.
--cleanup delete then removes the child entry and renames its transcript to
<file>.deleted.<timestamp>; otherwise the child is archived that way
agents.defaults.subagents.archiveAfterMinutes (default 60) after creation by
whichever 'sessions' command runs next (see 'sessions runs --sweep').

The requester is --as KEY / $OPENCLAW_SESSION_KEY, or for the host operator the
main session of --agent or the default agent. --agent ID spawns into another
agent when the requester agent's subagents.allowAgents allows it ("*" = any).
Refused before anything is written: a sub-agent requester (forbidden), an
agent not allowed (forbidden), an unknown agent (exit 4), an invalid thinking
level, a label over 64 characters (512 on a 2026.8+ agent; exit 2), a model that is malformed, of an
unconfigured provider, missing from the provider's models list or outside the
agents.defaults.models allowlist (exit 1), an OpenClaw 2026.8+ (SQLite) agent
while an OpenClaw process other than a gateway live on this host holds the
state dir (exit 10: use --gateway; with its gateway live, the spawn goes
through it, below).
On 2026.8+ state --cleanup delete archives the child row (archivedAt) instead
of deleting it; the run record says so (spawn.rowArchived).

The engine (--engine or $SESSIONS_ENGINE) is as for send; an exec engine runs
with OPENCLAW_SESSION_KEY set to the child's key.

Through a gateway (--gateway URL, --context NAME, $OPENCLAW_GATEWAY_URL, a
current context: the host operator's spawn from agent:<--agent or main>:main,
or with --as the requester's spawn checked against that host's config read
with config.get — the same refusals as above, the target agent's sub-agent
model default —, no local state dir needed; or an OpenClaw 2026.8+ agent
whose gateway is live on this host), the child is made by the gateway's own spawn: 1.30's
sessions_spawn recipe (an agent turn with spawnedBy, label, lane subagent and
the sub-agent system prompt), 9.x's sessions.create with parentSessionKey.
The announce goes into the requester with chat.inject, or as a turn of the
requester when the token lacks operator.admin; --cleanup delete removes the
child through the gateway. The engine is the gateway's (another one: exit 2).

JSON: {"status":"accepted","childSessionKey","runId"[,"modelApplied":true]}.
Follow the run with 'sessions wait RUN_ID' (the child's reply) or 'sessions runs'.`,
		Example: `  sessions spawn "Collect build stats for the last 3 CI runs" --label ci-stats
  sessions --as agent:main:main spawn "check disk usage on web-1" --agent ops --run-timeout 300 --json
  sessions spawn "summarise today's alerts" --model mock/mock-2 --thinking low --cleanup delete`,
		Args: cmdutil.ExactArgs(1, "TASK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Task = args[0]
			if runF != nil {
				return runF(o)
			}
			return run(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Label, "label", "", "label the child session with `LABEL` (1-64 characters; 1-512 on a 2026.8+ agent)")
	fl.StringVar(&o.Model, "model", "", "run the sub-agent with this `PROVIDER/MODEL` (or alias); default: the agent's subagents.model")
	fl.StringVar(&o.Thinking, "thinking", "", "thinking `LEVEL`: off, minimal, low, medium, high (xhigh for some models)")
	fl.IntVar(&o.RunTimeout, "run-timeout", 0, "abort the sub-agent's task after `S` seconds (0 = the turn timeout)")
	cmdutil.EnumVar(cmd, &o.Cleanup, "cleanup", "keep", "after the announce: keep the child session, or delete it (archive its transcript)", "keep", "delete")
	fl.StringVar(&o.Engine, "engine", "", "what produces the agent turns: auto | provider | openclaw | gateway | exec:COMMAND (default $SESSIONS_ENGINE, else auto)")
	fl.StringVar(&o.OpenClaw, "openclaw", "", "the openclaw executable for --engine openclaw/auto (default $SESSIONS_OPENCLAW, else openclaw on $PATH)")
	_ = cmd.RegisterFlagCompletionFunc("engine", cmdutil.CompleteEngine)
	fl.StringVar(&o.Deliver, "deliver", "", "deliver the announce through exec:COMMAND (default $SESSIONS_DELIVER)")
	_ = cmd.RegisterFlagCompletionFunc("thinking", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"off", "minimal", "low", "medium", "high", "xhigh"}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func run(ctx context.Context, o *Options) error {
	f := o.f
	res, err := f.Ops().Spawn(ctx, ops.SpawnRequest{Task: o.Task, Label: o.Label, Model: o.Model, Thinking: o.Thinking,
		RunTimeoutSeconds: o.RunTimeout, Cleanup: o.Cleanup, Engine: o.Engine, OpenClaw: o.OpenClaw, Deliver: o.Deliver})
	if err != nil {
		return err
	}
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	fmt.Fprintf(f.IO.Out, "%s\t%s\n", res.RunID, res.ChildSessionKey)
	if res.Warning != "" {
		f.Warn(res.Warning)
	}
	if f.IO.IsStderrTTY() {
		fmt.Fprintf(f.IO.ErrOut, "Spawned %s; follow with: sessions wait %s\n", res.ChildSessionKey, res.RunID)
	}
	return nil
}
