// Package usage implements `sessions usage`: tokens and cost of every
// assistant message, rolled up by day, model, agent, session, ….
package usage

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/output"
	"github.com/spf13/cobra"
)

// Options of `sessions usage`.
type Options struct {
	f               *cmdutil.Factory
	By              []string
	Since, Until    string
	AllAgents       bool
	IncludeArchived bool
	NoCache         bool
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	var by []string
	cmd := &cobra.Command{
		Use:   "usage [flags]",
		Short: "Tokens and cost of the agents' assistant messages, by day, model, agent, session…",
		Long: `Sum the usage OpenClaw recorded on every assistant message — input, output,
cache-read and cache-write tokens and the cost — over the transcripts of the
requester's agent (or --agent ID, or --all-agents), rolled up by one or more
dimensions: day, week (ISO), month, model, provider, agent, session, kind,
channel, cron (the cron job id of a cron session). Days, weeks and months are
in the local time zone ($TZ).

The cost is what OpenClaw recorded (usage.cost.total); for a message without
one it is computed from the model's configured cost (openclaw.json
models.providers.<p>.models[].cost, USD per million tokens), else counted as 0
and reported (costUnknownMessages).

Both storage eras are read: JSONL transcripts and OpenClaw 2026.8+'s SQLite
store (events and cold archives), read-only. What is counted: the live
transcripts (those of the sessions' entries) and the orphan ones, no entry
points to them (a conversation a /new reset or a crash left behind: every
<sessionId>.jsonl no session claims, a 2026.8+ store's events of a sessionId
no session has), under the key they belonged to when a later transcript
names it, else their sessionId. --include-archived adds the reset and deleted
copies (<file>.jsonl.reset.<time>, .deleted.<time>, zstd-compressed or not,
2026.8+ archives): search --include-archived covers exactly that set. A
message is counted once, however many copies of its session exist
(sessionId + entry id). A sandboxed requester counts only the sessions it
spawned (and their archived copies and orphans).

A second run reads only the transcripts that changed: each file's usage is
cached under the tool's own cache dir ($XDG_CACHE_HOME/sessions/usage, never in
the state dir) keyed by device, inode, size and mtime; --no-cache reads
everything (and leaves the cache alone).

JSON (--json): {"schema_version":1,"by":[…],"since","until","count":N,
"rows":[{<dimension>:value…,"messages","inputTokens","outputTokens",
"cacheReadTokens","cacheWriteTokens","totalTokens","costUsd","costMicroUsd",
"costComputedMessages","costUnknownMessages"}],"totals":{…},
"files":{"total","read","cached"}}. costMicroUsd is the exact integer.

Piped without --json, one tab-separated line per row: the dimension values,
messages, input, output, cacheRead, cacheWrite, total tokens, cost in USD,
cost in micro-USD; the last line is the totals, TOTAL in every dimension.`,
		Example: `  sessions usage
  sessions usage --by model --since 7d
  sessions usage --by day,model --all-agents --json
  sessions usage --by cron --since 2026-11-01 --until 2026-11-30
  sessions usage --by session --jq '.rows | sort_by(-.costMicroUsd) | .[:5]'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dims, err := ops.ParseUsageBy(by)
			if err != nil {
				return apperr.Usagef("%v", err)
			}
			if len(dims) == 0 {
				dims = []string{"day"}
			}
			o.By = dims
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
	fl.StringSliceVar(&by, "by", nil, "group by `DIM` (day, week, month, model, provider, agent, session, kind, channel, cron); repeat or comma-separate (default day)")
	fl.StringVar(&o.Since, "since", "", "only messages from `WHEN` on: a duration back from now (7d, 12h), a date (2006-01-02) or RFC 3339")
	fl.StringVar(&o.Until, "until", "", "only messages before `WHEN` (a date includes that whole day)")
	fl.BoolVar(&o.AllAgents, "all-agents", false, "count the sessions of every agent")
	fl.BoolVar(&o.IncludeArchived, "include-archived", false, "also count reset and deleted transcripts (each message once; orphan transcripts are always counted)")
	fl.BoolVar(&o.NoCache, "no-cache", false, "read every transcript; neither use nor update the usage cache")
	_ = cmd.RegisterFlagCompletionFunc("by", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return ops.UsageDimensions, cobra.ShellCompDirectiveNoFileComp
	})
	f.ReadsHost(cmd, ops.ReadUsage)
	return cmd
}

func run(ctx context.Context, o *Options) error {
	f := o.f
	res, err := f.Ops().Usage(ctx, ops.UsageQuery{By: o.By, Since: o.Since, Until: o.Until, AllAgents: o.AllAgents, IncludeArchived: o.IncludeArchived, NoCache: o.NoCache})
	if err != nil {
		return err
	}
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	return printTable(f, res)
}

func printTable(f *cmdutil.Factory, rep *ops.UsageResult) error {
	if len(rep.Rows) == 0 {
		if f.IO.IsStdoutTTY() {
			fmt.Fprintln(f.IO.ErrOut, "No usage recorded.")
		}
		return nil
	}
	tty := f.IO.IsStdoutTTY()
	var headers []string
	for _, d := range rep.By {
		headers = append(headers, d)
	}
	headers = append(headers, "Messages", "Input", "Output", "Cache read", "Cache write", "Total", "Cost (USD)")
	if !tty {
		headers = append(headers, "Cost (µUSD)")
	}
	t := output.NewTable(headers...)
	row := func(keys []string, tot ops.UsageTotals) {
		cells := append([]string{}, keys...)
		if tty {
			cells = append(cells, num(tot.Messages), num(tot.Input), num(tot.Output), num(tot.CacheRead), num(tot.CacheWrite), num(tot.Total), money(tot))
		} else {
			for _, v := range []int64{tot.Messages, tot.Input, tot.Output, tot.CacheRead, tot.CacheWrite, tot.Total} {
				cells = append(cells, strconv.FormatInt(v, 10))
			}
			cells = append(cells, strconv.FormatFloat(float64(tot.CostMicroUSD)/1e6, 'f', 6, 64), strconv.FormatInt(tot.CostMicroUSD, 10))
		}
		t.Row(cells...)
	}
	for _, r := range rep.Rows {
		keys := make([]string, len(r.Keys))
		for i, k := range r.Keys {
			keys[i] = k
			if tty && k == "" {
				keys[i] = "-"
			}
		}
		row(keys, r.Totals)
	}
	total := make([]string, len(rep.By))
	for i := range total {
		total[i] = "TOTAL"
	}
	row(total, rep.Totals)
	if err := t.Render(f.IO.Out, tty, f.IO.TerminalWidth()); err != nil {
		return err
	}
	if tty && (rep.Totals.CostUnknown > 0 || rep.Totals.CostComputed > 0) {
		fmt.Fprintf(f.IO.ErrOut, "Cost: %d message(s) priced from the configured model cost, %d with no cost known (counted as 0).\n",
			rep.Totals.CostComputed, rep.Totals.CostUnknown)
	}
	return nil
}

// num groups digits by thousands for people.
func num(v int64) string {
	s := strconv.FormatInt(v, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func money(t ops.UsageTotals) string {
	v := float64(t.CostMicroUSD) / 1e6
	if v != 0 && v < 0.01 {
		return "$" + strconv.FormatFloat(v, 'f', 4, 64)
	}
	return "$" + strconv.FormatFloat(v, 'f', 2, 64)
}
