// Package send implements `sessions send`.
package send

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `sessions send`.
type Options struct {
	f        *cmdutil.Factory
	Ref      string
	Label    string
	Message  string
	Timeout  int
	Engine   string
	OpenClaw string
	Deliver  string
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "send {KEY | SESSION_ID | PREFIX | --label L [--agent A]} MESSAGE [flags]",
		Short: "Send a message into a session and (optionally) wait for its reply",
		Long: `Send a message into another session, as OpenClaw's sessions_send does, without a
gateway: the message is recorded as a run and a short-lived detached runner
performs the target's turn, then (when a requester is set with --as and differs
from the target) the reply ping-pong, then the announce step, whose reply is
delivered to the target's channel unless it is exactly ANNOUNCE_SKIP.

Everything that can be refused is refused before anything is written: the
target must exist and be visible to the requester, the agent-to-agent policy
must allow it, and the send policy must not deny it (forbidden, exit 3).

--timeout S waits up to S seconds for the target's reply (default 30);
--timeout 0 returns at once with the run id. A caller that times out (exit 5)
or is killed does not stop the run: follow it with 'sessions wait RUN_ID'.

The agent turn is produced by an engine (--engine or $SESSIONS_ENGINE):
"auto" (default) takes openclaw when the executable is found, else provider;
"openclaw" runs a real OpenClaw turn (openclaw agent --local, with its tools;
--openclaw PATH or $SESSIONS_OPENCLAW names the executable); "provider" calls
the model provider openclaw.json configures, with the agent's persona and
workspace files but no tools; "exec:COMMAND" runs COMMAND with a JSON request
on stdin. The engine chosen is in the run record ('sessions runs'). Announces are
recorded in <state>/sessions-cli/outbox.jsonl and sent for real through
--deliver exec:COMMAND (or $SESSIONS_DELIVER).

Through a gateway: with --gateway URL, --context NAME, $OPENCLAW_GATEWAY_URL
or a current context, the session is found with the gateway's sessions.list
and every turn is the gateway's own (the gateway engine; several contexts
are refused); no local state dir is needed, and the run is recorded on this
machine in the gateway's home under $XDG_STATE_HOME/sessions/gateways/
('sessions wait' and 'sessions runs' with the same gateway find it). --as
there is checked against that host's config (config.get: exit 3 when the
credentials lack its scope), and the run takes the host's maxPingPongTurns
and agents.defaults.timeoutSeconds from it (without --as: OpenClaw's
defaults, 5 turns and 600 s). An
OpenClaw 2026.8+ (SQLite) agent whose gateway is live on this host is sent
to through that gateway with the config's credentials (--log-level debug
says so), nothing written to its database by us. There, an --engine other
than gateway (or auto) is a usage error.

JSON: {"runId","status":"accepted","sessionKey"} with --timeout 0;
{"runId","status":"ok","reply","sessionKey","delivery":{"status":"pending","mode":"announce"}};
{"runId","status":"timeout","error"} (exit 5); {"runId","status":"error","error"} (exit 1).`,
		Example: `  sessions send agent:main:telegram:group:-100123 "Deploy finished" --timeout 60
  sessions send --label build-stats "status?" --json
  sessions --as agent:ops:main send main "need a hand" --timeout 0
  sessions send main "hi" --engine 'exec:openclaw agent --local --message "$(jq -r .message)"'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.Label != "" {
				return cmdutil.Positional("MESSAGE")(cmd, args)
			}
			return cmdutil.Positional("KEY", "MESSAGE")(cmd, args)
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 || o.Label != "" {
				return nil, cobra.ShellCompDirectiveNoFileComp // the message
			}
			return f.SessionKeys(toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Label != "" {
				o.Message = args[0]
			} else {
				o.Ref, o.Message = args[0], args[1]
			}
			if runF != nil {
				return runF(o)
			}
			return run(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Label, "label", "", "target the session with this `LABEL` (with --agent to pick the agent)")
	fl.IntVar(&o.Timeout, "timeout", 30, "wait up to `S` seconds for the reply (0 = return at once)")
	fl.StringVar(&o.Engine, "engine", "", "what produces the agent turn: auto | provider | openclaw | gateway | exec:COMMAND (default $SESSIONS_ENGINE, else auto)")
	fl.StringVar(&o.OpenClaw, "openclaw", "", "the openclaw executable for --engine openclaw/auto (default $SESSIONS_OPENCLAW, else openclaw on $PATH)")
	fl.StringVar(&o.Deliver, "deliver", "", "deliver announces through exec:COMMAND (default $SESSIONS_DELIVER)")
	_ = cmd.RegisterFlagCompletionFunc("label", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return f.Labels(toComplete)
	})
	_ = cmd.RegisterFlagCompletionFunc("engine", cmdutil.CompleteEngine)
	_ = cmd.RegisterFlagCompletionFunc("deliver", cobra.FixedCompletions([]string{"exec:"}, cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace))
	return cmd
}

func run(ctx context.Context, o *Options) error {
	f := o.f
	res, err := f.Ops().Send(ctx, ops.SendRequest{Ref: o.Ref, Label: o.Label, Message: o.Message,
		Timeout: time.Duration(o.Timeout) * time.Second, Engine: o.Engine, OpenClaw: o.OpenClaw, Deliver: o.Deliver,
		OnWait: f.WaitSpinner()})
	if err != nil {
		return err
	}
	return f.PrintRunResult(res)
}
