// Package lifecyclecmd implements `sessions delete`, `sessions reset` and
// `sessions prune` over internal/lifecycle.
package lifecyclecmd

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/lifecycle"
	"github.com/openclaw/sessions/internal/output"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
	"github.com/spf13/cobra"
)

const jsonShape = `JSON (the same with --dry-run, "dryRun" aside): {"action","dryRun","count","bytes",
"sessions":[{"key","agentId","sessionId","newSessionId","updatedAt","kind",
"transcripts","bytes","kept"}],"skipped":[{"key","reason"}]} — transcripts are
the new names (<file>.deleted.<time>), bytes their size.`

const gatewayNote = `Over a gateway: when one is selected (--gateway, --context,
$OPENCLAW_GATEWAY_URL, the current context) or an agent keeps a 2026.8+ SQLite
store and this host's gateway for the state dir is live (its lock names a live
process, or its configured port answers; --log-level debug says so), the write is the gateway's own RPC (sessions.delete, sessions.reset,
archive as sessions.patch {archived} on 2026.9.x) with the same JSON;
--dry-run then calls no writing RPC.

`

type common struct {
	DryRun bool
	Force  bool
}

func (c *common) flags(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&c.DryRun, "dry-run", false, "print what would be done, change nothing")
	cmd.Flags().BoolVar(&c.Force, "force", false, "wait up to 15 s for a live run on the session to end instead of refusing")
}

// opts are the lifecycle options, with the gateway to go through (see
// remote) when one applies to agents; the caller closes o.Remote.
func (c *common) opts(f *cmdutil.Factory, s *state.State, agents []string) (lifecycle.Options, error) {
	o := lifecycle.Options{DryRun: c.DryRun, Force: c.Force, LockTimeout: f.Flags.LockTimeout, Now: f.Now}
	r, err := remote(f, s, agents)
	if err != nil {
		return o, err
	}
	o.Remote = r
	return o, nil
}

// run runs op with the options of agents and closes the gateway after.
func (c *common) run(f *cmdutil.Factory, s *state.State, agents []string, tweak func(*lifecycle.Options), op func(o lifecycle.Options) (*lifecycle.Result, error)) error {
	o, err := c.opts(f, s, agents)
	if err != nil {
		return err
	}
	if o.Remote != nil {
		defer o.Remote.Close()
	}
	if tweak != nil {
		tweak(&o)
	}
	res, err := op(o)
	if err != nil {
		return err
	}
	return print(f, res)
}

func agentsOf(ts ...*state.Target) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Agent)
	}
	return out
}

// NewCmdDelete builds `sessions delete`.
func NewCmdDelete(f *cmdutil.Factory) *cobra.Command {
	var c common
	var keep bool
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

` + gatewayNote + `On a 2026.8+ SQLite store (no OpenClaw process holding the state dir; agent
schema 23, else exit 10) it is OpenClaw 2026.9.6's sessions.delete with
deleteTranscript false, written directly, one transaction per session: the
session disappears from every listing, its row kept as OpenClaw's
placeholder over the transcript, which stays in the database (OpenClaw's
own transcript archive is written by its workers; use its gateway for
that). Nothing is renamed there, so "transcripts" is empty.

` + jsonShape,
		Example: `  sessions delete agent:main:cron:9ebf7d12-92f8-4cd4-baed-e342d2ef4f39 --dry-run
  sessions delete agent:main:hook:github:push-42 agent:main:telegram:group:-100123 --json`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: cmdutil.CompleteSessionArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := f.State()
			if err != nil {
				return err
			}
			var ts []*state.Target
			seen := map[string]bool{}
			for _, a := range args {
				t, err := s.Resolve(a, policy.OpSend)
				if err != nil {
					return err
				}
				if !seen[t.Agent+"\x00"+t.Key] {
					seen[t.Agent+"\x00"+t.Key] = true
					ts = append(ts, t)
				}
			}
			return c.run(f, s, agentsOf(ts...), func(o *lifecycle.Options) { o.KeepTranscript = keep }, func(o lifecycle.Options) (*lifecycle.Result, error) {
				return lifecycle.Delete(context.Background(), s, ts, o)
			})
		},
	}
	c.flags(cmd)
	cmd.Flags().BoolVar(&keep, "keep-transcript", false, "leave the transcripts where they are")
	return cmd
}

// NewCmdReset builds `sessions reset`.
func NewCmdReset(f *cmdutil.Factory) *cobra.Command {
	var c common
	cmd := &cobra.Command{
		Use:   "reset KEY|SESSION_ID",
		Short: "Start a session afresh as OpenClaw's sessions.reset does (new sessionId, old transcript kept)",
		Long: `Reset a session as OpenClaw's sessions.reset does: the entry is replaced, under
OpenClaw's store lock, by one with a new sessionId, updatedAt now, systemSent
and abortedLastRun false, token counters zeroed, and only the fields 1.30
keeps (thinkingLevel, verboseLevel, reasoningLevel, responseUsage, model,
contextTokens, sendPolicy, label, origin, lastChannel, lastTo,
skillsSnapshot). The old transcript stays where it is (sessions doctor reports
it as an orphan later; --fix renames it). The next turn writes the new
sessionId's transcript. A session with a live run is refused unless --force
waited for it. On a 2026.8+ SQLite store reset needs the gateway (exit 10
without one): OpenClaw 2026.9.6's reset keeps the sessionId and sets a new
lifecycleRevision, so newSessionId is the same id there.

` + gatewayNote + jsonShape,
		Example: `  sessions reset main --dry-run --json
  sessions reset agent:main:telegram:group:-100123`,
		Args:              cmdutil.ExactArgs(1, "session KEY or SESSION_ID"),
		ValidArgsFunction: cmdutil.CompleteSessionArg(f),
		RunE:              c.oneSession(f, lifecycle.Reset),
	}
	c.flags(cmd)
	return cmd
}

// oneSession is the RunE of a lifecycle command on one session (reset,
// archive): resolve it, then act through c.run (files, database or gateway).
func (c *common) oneSession(f *cmdutil.Factory, act func(context.Context, *state.State, *state.Target, lifecycle.Options) (*lifecycle.Result, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		s, err := f.State()
		if err != nil {
			return err
		}
		t, err := s.Resolve(args[0], policy.OpSend)
		if err != nil {
			return err
		}
		return c.run(f, s, agentsOf(t), nil, func(o lifecycle.Options) (*lifecycle.Result, error) {
			return act(context.Background(), s, t, o)
		})
	}
}

// NewCmdArchive builds `sessions archive`.
func NewCmdArchive(f *cmdutil.Factory) *cobra.Command {
	var c common
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

` + gatewayNote + jsonShape + ` archivedAt is set on 2026.8+ stores.`,
		Example: `  sessions archive agent:main:hook:github:push-42 --dry-run --json
  sessions archive agent:main:telegram:group:-100123`,
		Args:              cmdutil.ExactArgs(1, "session KEY or SESSION_ID"),
		ValidArgsFunction: cmdutil.CompleteSessionArg(f),
		RunE:              c.oneSession(f, lifecycle.Archive),
	}
	c.flags(cmd)
	return cmd
}

// NewCmdPrune builds `sessions prune`.
func NewCmdPrune(f *cmdutil.Factory) *cobra.Command {
	var c common
	var yes, all bool
	var older, kinds string
	cmd := &cobra.Command{
		Use:   "prune --older-than DUR (--dry-run | --yes)",
		Short: "Delete every session not updated for a while (never a main session)",
		Long: `Delete, as sessions delete does, every session of the agent (--agent, or
--all-agents) last updated more than --older-than ago (e.g. 720h, 30d, 90m),
only of --kinds when given; never a main session, never one with a live run
(both listed under "skipped"). An entry updated meanwhile is left alone (the
age is checked again under the store lock). --dry-run shows what would go and
the bytes of transcripts that would be moved aside; --yes does it.

` + jsonShape,
		Example: `  sessions prune --older-than 30d --dry-run
  sessions prune --older-than 30d --kinds cron,hook --all-agents --yes --json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if c.DryRun == yes {
				return apperr.Usagef("give exactly one of --dry-run or --yes")
			}
			d, err := ParseAge(older)
			if err != nil {
				return apperr.Usagef("invalid --older-than %q: %v", older, err)
			}
			var ks []string
			if kinds != "" {
				for _, k := range strings.Split(kinds, ",") {
					k = strings.TrimSpace(k)
					if !keys.IsKind(k) {
						return apperr.Usagef("invalid --kinds value %q (want %s)", k, strings.Join(keys.Kinds, ","))
					}
					ks = append(ks, k)
				}
			}
			s, err := f.State()
			if err != nil {
				return err
			}
			if !s.Req.Operator() {
				return apperr.Forbiddenf("sessions prune is for the host operator (run it without --as and OPENCLAW_SESSION_KEY); an agent deletes its own sessions one by one with sessions delete")
			}
			agents := s.AgentIDs()
			if !all {
				a := s.Default
				if s.AgentFlag != "" {
					a = s.AgentFlag
				}
				agents = []string{a}
			}
			return c.run(f, s, agents, nil, func(o lifecycle.Options) (*lifecycle.Result, error) {
				return lifecycle.Prune(context.Background(), s, agents, d, ks, o)
			})
		},
	}
	c.flags(cmd)
	cmd.Flags().BoolVar(&yes, "yes", false, "really delete")
	cmd.Flags().BoolVar(&all, "all-agents", false, "every agent, not only --agent")
	cmd.Flags().StringVar(&older, "older-than", "", "last updated more than `DUR` ago (required; 90m, 48h, 30d)")
	cmd.Flags().StringVar(&kinds, "kinds", "", "only these kinds, comma-separated: main,group,cron,hook,node,other")
	_ = cmd.MarkFlagRequired("older-than")
	return cmd
}

// ParseAge is a Go duration, or N followed by d (days); positive.
func ParseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.ParseFloat(n, 64)
		if err != nil {
			return 0, fmt.Errorf("want a duration such as 90m, 48h or 30d")
		}
		d = time.Duration(days * float64(24*time.Hour))
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("want a duration such as 90m, 48h or 30d")
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("must be positive")
	}
	return d, nil
}

func print(f *cmdutil.Factory, res *lifecycle.Result) error {
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
