// Package list implements `sessions list`.
package list

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/cells"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/rowjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/output"
	"github.com/openclaw/sessions/internal/render"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `sessions list`.
type Options struct {
	f         *cmdutil.Factory
	Kinds     []string
	Limit     cmdutil.Limit
	Active    int
	Messages  int
	AllAgents bool
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	var kinds string
	cmd := &cobra.Command{
		Use:     "list [flags]",
		Aliases: []string{"ls"},
		Short:   "List sessions, newest first",
		Long: `List the sessions of the requester's agent (or --agent ID, or --all-agents),
sorted by last update, newest first.

The requester is the host operator unless --as KEY / $OPENCLAW_SESSION_KEY names
a session: then the list spans its own agent plus every agent the
agent-to-agent policy allows, and a sandboxed requester sees only the sessions
it spawned.

--limit N (default 200) or --limit all. A listing never hides that it is
partial: the JSON says how many sessions matched (totalCount), the limit in
force (limitApplied, null with --limit all) and whether some were left out
(hasMore), as OpenClaw 2026.9's own 'openclaw sessions --json' does; a
terminal gets "Showing N of M sessions" on stderr. On a terminal the key
column is never cut: other columns shrink, then drop.

JSON (--json): {"count":N,"totalCount":M,"limitApplied":L,"hasMore":B,
"sessions":[row...]}; each row has key, kind, channel,
agentId and, when known, label, displayName, updatedAt, sessionId, model,
contextTokens, totalTokens, thinkingLevel, verboseLevel, systemSent,
abortedLastRun, sendPolicy, spawnedBy, lastChannel, lastTo, deliveryContext,
transcriptPath (absolute, real) and messages (with --messages N).

Piped without --json, one tab-separated line per session:
key, kind, channel, agentId, updatedAt (RFC 3339), sessionId, model,
totalTokens, label.`,
		Example: `  sessions list
  sessions list --json --kinds group,main --active 60
  sessions list --all-agents --messages 3 --json
  sessions list --limit all --jq '.sessions[].key'
  sessions list --jq '.sessions[] | select(.kind=="group") | .key'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if o.Kinds, err = cmdutil.ParseKinds(kinds); err != nil {
				return err
			}
			if err := o.Limit.Check("limit"); err != nil {
				return err
			}
			if cmd.Flags().Changed("active") {
				if err := cmdutil.IntRange("active", o.Active, 1, 0); err != nil {
					return err
				}
			}
			if err := cmdutil.IntRange("messages", o.Messages, 0, 20); err != nil {
				return err
			}
			if o.AllAgents && f.Flags.Agent != "" {
				return apperr.Usagef("--agent and --all-agents cannot be used together")
			}
			if runF != nil {
				return runF(o)
			}
			return run(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	cmdutil.KindsFlag(cmd, &kinds, cmdutil.KindsUsage)
	o.Limit = cmdutil.Limit{N: DefaultLimit}
	fl.Var(cmdutil.LimitFlag{L: &o.Limit}, "limit", "at most `N` sessions, or all")
	fl.IntVar(&o.Active, "active", 0, "only sessions updated in the last `MIN` minutes")
	fl.IntVar(&o.Messages, "messages", 0, "include the last `N` messages (0-20) of each session, tool results removed")
	fl.BoolVar(&o.AllAgents, "all-agents", false, "list the sessions of every agent")
	_ = cmd.RegisterFlagCompletionFunc("limit", cmdutil.FixedCompletions("all"))
	return cmd
}

// DefaultLimit is how many sessions list shows without --limit.
const DefaultLimit = 200

func run(ctx context.Context, o *Options) error {
	f := o.f
	res, err := f.Ops().List(ctx, ops.ListQuery{Kinds: o.Kinds, Limit: o.Limit.Max(), Active: o.Active, Messages: o.Messages, AllAgents: o.AllAgents})
	if err != nil {
		return err
	}
	if f.JSONMode() {
		err = printJSON(f, res)
	} else {
		err = printTable(f, res.Sessions, res.MultiAgent, o.Messages > 0, res.Fleet)
	}
	if err == nil && res.HasMore && f.IO.IsStderrTTY() {
		// After the rows, where a person reading a terminal looks last.
		fmt.Fprintf(f.IO.ErrOut, "Showing %d of %d sessions (--limit all for every one)\n", res.Count, res.TotalCount)
	}
	if err != nil {
		return err
	}
	if res.Errors != nil {
		return cmdutil.ReportHostErrors(f, *res.Errors)
	}
	return nil
}

func printTable(f *cmdutil.Factory, rows []ops.Row, multiAgent, withMsgs, fleet bool) error {
	io := f.IO
	tty := io.IsStdoutTTY()
	if tty {
		if len(rows) == 0 {
			fmt.Fprintln(io.ErrOut, "No sessions found.")
			return nil
		}
		var hdr []string
		if fleet {
			hdr = append(hdr, "Context")
		}
		hdr = append(hdr, "Key", "Kind", "Channel")
		if multiAgent {
			hdr = append(hdr, "Agent")
		}
		hdr = append(hdr, "Updated", "Model", "Tokens", "Label")
		if withMsgs {
			hdr = append(hdr, "Last message")
		}
		// The key is never cut: it is what people copy into history and
		// send. Label, model and the preview shrink; then columns drop, the
		// least useful first (the agent is in the key).
		t := output.NewTable(hdr...)
		col := map[string]int{}
		for i, h := range hdr {
			col[h] = i
			switch h {
			case "Label", "Model", "Last message":
				t.Flexible(i)
			}
		}
		for _, h := range []string{"Agent", "Tokens", "Model", "Channel", "Last message", "Label", "Kind", "Updated"} {
			if i, ok := col[h]; ok {
				t.Droppable(i)
			}
		}
		now := f.Now()
		for _, r := range rows {
			var row []string
			if fleet {
				row = append(row, r.Context)
			}
			row = append(row, r.Key, r.Kind, r.Channel)
			if multiAgent {
				row = append(row, r.AgentID)
			}
			row = append(row, cells.AgoMs(r.UpdatedAt, now), r.Model, cells.Tokens(r.TotalTokens, r.ContextTokens), r.Label)
			if withMsgs {
				row = append(row, preview(r.Messages))
			}
			t.Row(row...)
		}
		return t.Render(io.Out, true, io.TerminalWidth())
	}
	t := output.NewTable()
	for _, r := range rows {
		cells := []string{r.Key, r.Kind, r.Channel, r.AgentID, rfc3339(r.UpdatedAt), r.SessionID, r.Model, num(r.TotalTokens), r.Label}
		if fleet {
			cells = append([]string{r.Context}, cells...)
		}
		t.Row(cells...)
	}
	return t.Render(io.Out, false, 0)
}

func rfc3339(ms *float64) string {
	if ms == nil {
		return ""
	}
	return time.UnixMilli(int64(*ms)).UTC().Format(time.RFC3339)
}

func num(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}

// preview is the first line of the last message's text.
func preview(msgs []json.RawMessage) string {
	if len(msgs) == 0 {
		return ""
	}
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(msgs[len(msgs)-1], &m) != nil {
		return ""
	}
	text := render.Text(m.Content)
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	return m.Role + ": " + text
}

// printJSON prints the result exactly as f.PrintJSON does (encoding/json,
// two-space indent, no HTML escaping), writing the rows with rowjson when it
// can (10,000 rows cost as much through encoding/json as reading the
// store): not with --jq, over a fleet, or with rows rowjson cannot write.
// Messages (--messages N) are written one compact line each.
func printJSON(f *cmdutil.Factory, res *ops.ListResult) error {
	if f.Flags.JQ != "" || res.Errors != nil || !rowjson.Encodable(res.Sessions) {
		return f.PrintJSON(res)
	}
	return rowjson.WriteList(f.IO.Out, rowjson.Doc{Count: res.Count, TotalCount: res.TotalCount, LimitApplied: res.LimitApplied, HasMore: res.HasMore, Sessions: res.Sessions})
}
