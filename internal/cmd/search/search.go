// Package search implements `sessions search QUERY`.
package search

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cells"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/output"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `sessions search`.
type Options struct {
	f               *cmdutil.Factory
	Query           ops.SearchPattern
	AllAgents       bool
	Kinds           []string
	Role            string
	Since, Until    string
	Key, Label      string
	IncludeTools    bool
	IncludeArchived bool
	NoIndex         bool
	Limit           int // 0 = all
	Context         int
	Relevance       bool // --rank relevance
}

// Ranks are the values of --rank.
var Ranks = []string{"newest", "relevance"}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	var kinds, limit, rank string
	cmd := &cobra.Command{
		Use:   "search QUERY [flags]",
		Short: "Search transcripts for a text, newest hits first",
		Long: `Search the transcripts of the requester's agent (or --agent ID, or
--all-agents) for QUERY: a literal by default, a Go (RE2) regular expression
with --regex; --ignore-case for both. With --words, QUERY is words and
"quoted phrases": a hit holds every one of them, in any order, a phrase's
words in order; case and width (fullwidth, halfwidth) do not matter; a Latin,
Cyrillic... word matches whole words, a run of Chinese, Japanese, Korean or
Thai text matches as text (再起動 finds 再起動しました). --rank relevance
orders the hits of --words by BM25 relevance (the words' counts in the
message, its length, how rare each word is among the messages searched; ties
newest first) instead of newest first; with it every message in scope is
read. The text searched is what OpenClaw's own
transcript index holds: the text of user and assistant messages (thinking
blocks and images are not searched); --include-tools adds tool results and
tool calls (name and arguments).

Both storage eras: JSONL transcripts are streamed in parallel, a literal found
with a byte search before any line is parsed; on OpenClaw 2026.8+ (SQLite
store) OpenClaw's search index is read where it is current for the session,
else the transcript events (and cold archives). --no-index always scans the
events.

Our own search index (sessions index, in the cache dir) answers when the
query can select, brought up to date first. A search that finds it far
behind (the first build of a large state) does not wait for it: it scans and
starts one sessions index --update in the background, at low priority
(SESSIONS_INDEX_BACKGROUND=0: never); a line on a terminal says so. An
agent's search (--as) does the same for its own index of masked text,
saying nothing.

What is searched: without --include-archived the live transcripts, those of
the sessions' entries; --include-archived adds every other transcript of the
state dir — the .deleted/.reset archived copies (files, zstd-compressed or
not, and 2026.9's archives kept in the store) and the orphan transcripts, no
entry points to them (a conversation a /new reset or a crash left behind: a
<sessionId>.jsonl no session claims, a 2026.8+ store's events of a sessionId
no session has). usage covers the same transcripts (see its help).

The requester's visibility applies: agent-to-agent policy, and a sandboxed
requester finds only the sessions it spawned (and their archived copies and
orphans).

JSON (--json): {"count","totalCount","hasMore","hits":[hit...]}; a hit has
key, kind, agentId, label, sessionId, id (the entry id), role (user,
assistant, tool), timestamp (epoch ms), snippet, match (the matched text),
source (transcript, index, events; orphan for an orphan transcript, whose
key is the session it belonged to when a later transcript names it, else
none), archived (the archive's file name) and,
with -C N, context {"before":[m...],"after":[m...]} (m: id, role, timestamp,
text).

Piped without --json, one tab-separated line per hit: key, agentId,
sessionId, id, role, timestamp (RFC 3339), snippet.`,
		Example: `  sessions search deploy
  sessions search --all-agents --since 7d -i "disk full"
  sessions search --regex 'error [0-9]{3}' --role assistant --json
  sessions search hello -C 2 --limit 5
  sessions search --words --rank relevance 'gateway "restart failed"'`,
		Args: cmdutil.ExactArgs(1, "QUERY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Query.Pattern = args[0]
			var err error
			if o.Kinds, err = cmdutil.ParseKinds(kinds); err != nil {
				return err
			}
			if o.Role != "" && !slices.Contains(ops.SearchRoles, o.Role) {
				return apperr.Usagef("invalid --role %q (want user, assistant or tool)", o.Role)
			}
			switch l := strings.TrimSpace(limit); l {
			case "all":
				o.Limit = 0
			default:
				n, err := strconv.Atoi(l)
				if err != nil || n < 1 {
					return apperr.Usagef("invalid --limit %q (a number >= 1, or all)", limit)
				}
				o.Limit = n
			}
			if err := cmdutil.IntRange("context", o.Context, 0, 100); err != nil {
				return err
			}
			if o.AllAgents && f.Flags.Agent != "" {
				return apperr.Usagef("--agent and --all-agents cannot be used together")
			}
			if o.Key != "" && o.Label != "" {
				return apperr.Usagef("--key and --label cannot be used together")
			}
			if o.Query.Words && o.Query.Regex {
				return apperr.Usagef("--words and --regex cannot be used together")
			}
			switch rank {
			case "newest":
			case "relevance":
				if !o.Query.Words {
					return apperr.Usagef("--rank relevance needs --words")
				}
				o.Relevance = true
			default:
				return apperr.Usagef("invalid --rank %q (want newest or relevance)", rank)
			}
			if runF != nil {
				return runF(o)
			}
			return run(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&o.Query.Regex, "regex", false, "QUERY is a Go (RE2) regular expression")
	fl.BoolVarP(&o.Query.IgnoreCase, "ignore-case", "i", false, "match regardless of case")
	fl.BoolVar(&o.Query.Words, "words", false, `QUERY is words and "quoted phrases", all in one message in any order (case and width folded)`)
	fl.StringVar(&rank, "rank", "newest", "order the hits by `ORDER`: newest, or relevance (with --words)")
	fl.BoolVar(&o.AllAgents, "all-agents", false, "search the sessions of every agent")
	cmdutil.KindsFlag(cmd, &kinds, "only sessions of these kinds, comma-separated: main,group,cron,hook,node,other")
	fl.StringVar(&o.Role, "role", "", "only messages of this `ROLE`: user, assistant, tool (tool implies --include-tools)")
	fl.StringVar(&o.Since, "since", "", "only messages from `WHEN` on: a duration back from now (30m, 2h, 7d, 2w) or a date (2026-11-20, RFC 3339)")
	fl.StringVar(&o.Until, "until", "", "only messages up to `WHEN` (same forms; a date includes that whole day)")
	fl.StringVar(&o.Key, "key", "", "only the session `KEY` (or sessionId)")
	fl.StringVar(&o.Label, "label", "", "only the session labelled `L`")
	fl.BoolVar(&o.IncludeTools, "include-tools", false, "search tool results and tool calls too")
	fl.BoolVar(&o.IncludeArchived, "include-archived", false, "also search the .deleted/.reset archived transcripts and the orphan ones (no entry points to them)")
	fl.BoolVar(&o.NoIndex, "no-index", false, "scan every transcript: no search index, neither ours (kept in the cache dir; also SESSIONS_NO_INDEX=1) nor, on 2026.8+, OpenClaw's")
	fl.StringVar(&limit, "limit", "50", "at most `N` hits (or all); totalCount says how many there are")
	fl.IntVarP(&o.Context, "context", "C", 0, "show `N` messages before and after each hit")
	_ = cmd.RegisterFlagCompletionFunc("role", cmdutil.FixedCompletions(ops.SearchRoles...))
	_ = cmd.RegisterFlagCompletionFunc("key", func(_ *cobra.Command, _ []string, tc string) ([]string, cobra.ShellCompDirective) {
		return f.SessionKeys(tc)
	})
	_ = cmd.RegisterFlagCompletionFunc("label", func(_ *cobra.Command, _ []string, tc string) ([]string, cobra.ShellCompDirective) {
		return f.Labels(tc)
	})
	_ = cmd.RegisterFlagCompletionFunc("limit", cmdutil.FixedCompletions("all"))
	_ = cmd.RegisterFlagCompletionFunc("rank", cmdutil.FixedCompletions(Ranks...))
	f.ReadsHost(cmd, ops.ReadSearch)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	f := o.f
	q := ops.SearchQuery{
		Pattern: o.Query, AllAgents: o.AllAgents, Kinds: o.Kinds, Role: o.Role, Since: o.Since, Until: o.Until,
		Key: o.Key, Label: o.Label, IncludeTools: o.IncludeTools, IncludeArchived: o.IncludeArchived,
		NoIndex: o.NoIndex, Limit: o.Limit, Context: o.Context, Relevance: o.Relevance,
	}
	if f.IO.IsStderrTTY() && !f.JSONMode() {
		// a person at the terminal hears once that the index is being built
		q.Notice = func(line string) { fmt.Fprintln(f.IO.ErrOut, line) }
	}
	res, err := f.Ops().Search(ctx, q)
	if err != nil {
		return err
	}
	if f.JSONMode() && f.Flags.JQ == "" {
		return writeJSON(f.IO.Out, res, res.Len(), res.Hit)
	}
	res.Fill()
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	return printText(f, res)
}

// writeJSON writes the document exactly as f.PrintJSON would (two-space
// indent, no HTML escaping), one hit at a time: `--limit all` with many
// hits never holds the whole document in memory.
func writeJSON(w io.Writer, head *ops.SearchResult, n int, hit func(int) ops.SearchHit) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "{\n  \"count\": %d,\n  \"totalCount\": %d,\n  \"hasMore\": %t,\n", head.Count, head.TotalCount, head.HasMore)
	if head.Partial {
		bw.WriteString("  \"partial\": true,\n")
	}
	bw.WriteString("  \"hits\": [")
	for i := range n {
		b, err := jsonx.MarshalIndent(hit(i))
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(bytes.ReplaceAll(b, []byte("\n"), []byte("\n    ")))
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}

func printText(f *cmdutil.Factory, doc *ops.SearchResult) error {
	io := f.IO
	if !io.IsStdoutTTY() {
		t := output.NewTable()
		for _, h := range doc.Hits {
			ts := ""
			if h.Timestamp != nil {
				ts = time.UnixMilli(*h.Timestamp).UTC().Format(time.RFC3339)
			}
			t.Row(h.Key, h.AgentID, h.SessionID, h.ID, h.Role, ts, h.Snippet)
		}
		return t.Render(io.Out, false, 0)
	}
	if len(doc.Hits) == 0 {
		fmt.Fprintln(io.ErrOut, "No matches.")
		return nil
	}
	cs := io.ColorScheme()
	now := f.Now()
	role := func(r string) string {
		if r == "tool" {
			return cs.Role("toolResult")
		}
		return cs.Role(r)
	}
	age := func(ts *int64) string {
		if ts == nil {
			return "-"
		}
		return cells.Ago(now.Sub(time.UnixMilli(*ts)))
	}
	var b strings.Builder
	for i, h := range doc.Hits {
		key := h.Key
		if key == "" {
			key = h.SessionID
		}
		fmt.Fprintf(&b, "%s  %s  %s  %s", cs.Bold(key), role(h.Role), cs.Gray(age(h.Timestamp)), cs.Gray(h.ID))
		if h.Archived != "" {
			fmt.Fprintf(&b, "  %s", cs.Gray("("+h.Archived+")"))
		}
		b.WriteByte('\n')
		ctx := func(ms []ops.SearchContextMessage) {
			for _, m := range ms {
				line := ops.SearchLine(m.Text, 100)
				fmt.Fprintf(&b, "    %s %s\n", cs.Gray("·"), cs.Gray(m.Role+": "+line))
			}
		}
		if h.Context != nil {
			ctx(h.Context.Before)
		}
		pre, match, post := doc.Highlight(i)
		fmt.Fprintf(&b, "    %s%s%s\n", pre, cs.Bold(match), post)
		if h.Context != nil {
			ctx(h.Context.After)
		}
	}
	switch {
	case doc.Partial:
		fmt.Fprintf(&b, "%s\n", cs.Gray(fmt.Sprintf("%d of %d hits found before the search stopped at its budget (partial)", doc.Count, doc.TotalCount)))
	case doc.HasMore:
		fmt.Fprintf(&b, "%s\n", cs.Gray(fmt.Sprintf("%d of %d hits (--limit all for every one)", doc.Count, doc.TotalCount)))
	}
	_, err := io.Out.Write([]byte(b.String()))
	return err
}
