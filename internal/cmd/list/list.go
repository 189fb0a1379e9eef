// Package list implements `sessions list`.
package list

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/output"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/render"
	"github.com/openclaw/sessions/internal/sanitize"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcript"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `sessions list`.
type Options struct {
	f         *cmdutil.Factory
	Kinds     []string
	Limit     int
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

JSON (--json): {"count":N,"sessions":[row...]}; each row has key, kind, channel,
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
  sessions list --jq '.sessions[] | select(.kind=="group") | .key'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if kinds != "" {
				for _, k := range strings.Split(kinds, ",") {
					k = strings.ToLower(strings.TrimSpace(k))
					if k == "" {
						continue
					}
					if !keys.IsKind(k) {
						return apperr.Usagef("invalid --kinds value %q (want %s)", k, strings.Join(keys.Kinds, ","))
					}
					o.Kinds = append(o.Kinds, k)
				}
			}
			if err := cmdutil.IntRange("limit", o.Limit, 1, 0); err != nil {
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
			return run(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&kinds, "kinds", "", "only these kinds, comma-separated: main,group,cron,hook,node,other")
	fl.IntVar(&o.Limit, "limit", 200, "at most `N` sessions")
	fl.IntVar(&o.Active, "active", 0, "only sessions updated in the last `MIN` minutes")
	fl.IntVar(&o.Messages, "messages", 0, "include the last `N` messages (0-20) of each session, tool results removed")
	fl.BoolVar(&o.AllAgents, "all-agents", false, "list the sessions of every agent")
	_ = cmd.RegisterFlagCompletionFunc("kinds", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return keys.Kinds, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// Result is the JSON document of `sessions list`.
type Result struct {
	Count    int         `json:"count"`
	Sessions []state.Row `json:"sessions"`
}

// agentsToList picks the agents whose sessions are listed (CONTRACT §3).
func agentsToList(s *state.State, all bool) ([]string, error) {
	if s.AgentFlag != "" {
		if msg := s.CanSeeAgent(s.AgentFlag, policy.OpHistory); msg != "" {
			return nil, apperr.Forbiddenf("%s", msg)
		}
		return []string{s.AgentFlag}, nil
	}
	if s.Req.Operator() && !all {
		return []string{s.Req.Agent}, nil
	}
	var out []string
	for _, a := range s.AgentIDs() {
		if s.CanSeeAgent(a, policy.OpHistory) == "" {
			out = append(out, a)
		}
	}
	return out, nil
}

func run(o *Options) error {
	f := o.f
	s, err := f.State()
	if err != nil {
		return err
	}
	agents, err := agentsToList(s, o.AllAgents)
	if err != nil {
		return err
	}
	var rows []state.Row
	var lastErr error
	read := 0
	for _, agent := range agents {
		st, entries, err := s.Entries(agent)
		if err != nil {
			if len(agents) > 1 && s.Era(agent) == "sqlite" {
				f.Warn(err.Error())
				lastErr = err
				continue
			}
			return err
		}
		read++
		for _, e := range entries {
			if !s.Listable(e.Key) || !s.Visible(e) {
				continue
			}
			rows = append(rows, s.Row(agent, st, e))
		}
	}
	if read == 0 && lastErr != nil {
		return lastErr
	}
	rows = filter(rows, o, f.Now())
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Entry.Updated() > rows[j].Entry.Updated() })
	if len(rows) > o.Limit {
		rows = rows[:o.Limit]
	}
	for i := range rows {
		r := &rows[i]
		tp, err := s.Transcript(r.AgentID, r.Store, r.Entry)
		if err != nil {
			f.Warn(err.Error())
			continue
		}
		r.TranscriptPath = tp.Path
		if o.Messages > 0 && tp.Exists {
			r.Messages = lastMessages(f, tp.Path, o.Messages)
		}
	}
	if rows == nil {
		rows = []state.Row{}
	}
	if f.JSONMode() {
		return f.PrintJSON(Result{Count: len(rows), Sessions: rows})
	}
	return printTable(f, rows, len(agents) > 1, o.Messages > 0)
}

func filter(rows []state.Row, o *Options, now time.Time) []state.Row {
	if len(o.Kinds) == 0 && o.Active == 0 {
		return rows
	}
	kinds := map[string]bool{}
	for _, k := range o.Kinds {
		kinds[k] = true
	}
	cutoff := now.Add(-time.Duration(o.Active) * time.Minute).UnixMilli()
	out := rows[:0]
	for _, r := range rows {
		if len(kinds) > 0 && !kinds[r.Kind] {
			continue
		}
		if o.Active > 0 && (r.UpdatedAt == nil || r.Entry.Updated() < cutoff) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// lastMessages returns the last n messages, tool results removed, prepared
// like `history`'s default output.
func lastMessages(f *cmdutil.Factory, path string, n int) []json.RawMessage {
	res, err := transcript.ReadMessages(path, transcript.Options{Limit: n, Warn: f.Warn})
	if err != nil {
		f.Warn(fmt.Sprintf("transcript %s: %v", path, err))
		return nil
	}
	msgs := make([]json.RawMessage, len(res.Messages))
	for i, m := range res.Messages {
		msgs[i] = sanitize.StripEnvelope(m)
	}
	out, _, _ := sanitize.History(msgs, sanitize.DefaultCapBytes)
	return out
}

func printTable(f *cmdutil.Factory, rows []state.Row, multiAgent, withMsgs bool) error {
	io := f.IO
	tty := io.IsStdoutTTY()
	if tty {
		if len(rows) == 0 {
			fmt.Fprintln(io.ErrOut, "No sessions found.")
			return nil
		}
		hdr := []string{"Key", "Kind", "Channel"}
		if multiAgent {
			hdr = append(hdr, "Agent")
		}
		hdr = append(hdr, "Updated", "Model", "Tokens", "Label")
		if withMsgs {
			hdr = append(hdr, "Last message")
		}
		// The key (widest) gives way first, then label, model and the preview.
		t := output.NewTable(hdr...)
		for i, h := range hdr {
			switch h {
			case "Key", "Label", "Model", "Last message":
				t.Flexible(i)
			}
		}
		now := f.Now()
		for _, r := range rows {
			cells := []string{r.Key, r.Kind, r.Channel}
			if multiAgent {
				cells = append(cells, r.AgentID)
			}
			cells = append(cells, relAge(r.UpdatedAt, now), r.Model, tokens(r.TotalTokens, r.ContextTokens), r.Label)
			if withMsgs {
				cells = append(cells, preview(r.Messages))
			}
			t.Row(cells...)
		}
		return t.Render(io.Out, true, io.TerminalWidth())
	}
	t := output.NewTable()
	for _, r := range rows {
		t.Row(r.Key, r.Kind, r.Channel, r.AgentID, rfc3339(r.UpdatedAt), r.SessionID, r.Model, num(r.TotalTokens), r.Label)
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

// relAge: "just now", "5m ago", "3h ago", "2d ago".
func relAge(ms *float64, now time.Time) string {
	if ms == nil {
		return "-"
	}
	d := now.Sub(time.UnixMilli(int64(*ms)))
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// tokens: "5.8k/128k (5%)" like `openclaw sessions`, "-" when unknown.
func tokens(total, ctx *float64) string {
	if total == nil || *total == 0 {
		return "-"
	}
	k := func(v float64) string {
		if v >= 10000 {
			return fmt.Sprintf("%.0fk", v/1000)
		}
		return fmt.Sprintf("%.1fk", v/1000)
	}
	if ctx == nil || *ctx == 0 {
		return k(*total)
	}
	pct := int(*total / *ctx * 100)
	if pct > 999 {
		pct = 999
	}
	return fmt.Sprintf("%s/%s (%d%%)", k(*total), k(*ctx), pct)
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
