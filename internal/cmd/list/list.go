// Package list implements `sessions list`.
package list

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/output"
	"github.com/openclaw/sessions/internal/render"
	"github.com/openclaw/sessions/internal/state"
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
			return run(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&kinds, "kinds", "", "only these kinds, comma-separated: main,group,cron,hook,node,other")
	o.Limit = cmdutil.Limit{N: DefaultLimit}
	fl.Var(cmdutil.LimitFlag{L: &o.Limit}, "limit", "at most `N` sessions, or all")
	fl.IntVar(&o.Active, "active", 0, "only sessions updated in the last `MIN` minutes")
	fl.IntVar(&o.Messages, "messages", 0, "include the last `N` messages (0-20) of each session, tool results removed")
	fl.BoolVar(&o.AllAgents, "all-agents", false, "list the sessions of every agent")
	_ = cmd.RegisterFlagCompletionFunc("limit", cmdutil.FixedCompletions("all"))
	_ = cmd.RegisterFlagCompletionFunc("kinds", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return keys.Kinds, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// DefaultLimit is how many sessions list shows without --limit.
const DefaultLimit = 200

// Result is the JSON document of `sessions list`. TotalCount, LimitApplied
// and HasMore are what OpenClaw 2026.9's `openclaw sessions --json` reports:
// the matching sessions before the limit, the limit in force (null for
// --limit all) and whether rows were left out.
type Result struct {
	Count        int         `json:"count"`
	TotalCount   int         `json:"totalCount"`
	LimitApplied *int        `json:"limitApplied"`
	HasMore      bool        `json:"hasMore"`
	Sessions     []state.Row `json:"sessions"`
	// Errors: the hosts that failed, in fleet mode only (--context all);
	// [] when none did.
	Errors *[]backend.HostError `json:"errors,omitempty"`
}

func run(o *Options) error {
	f := o.f
	readers, fleet, err := f.Readers()
	if err != nil {
		return err
	}
	defer cmdutil.CloseReaders(readers)
	q := backend.ListQuery{Kinds: o.Kinds, Limit: o.Limit.Max(), Active: o.Active, Messages: o.Messages, AllAgents: o.AllAgents, Now: f.Now()}
	var lr *backend.ListResult
	var failed []backend.HostError
	if fleet {
		lr, failed = backend.ListFleet(context.Background(), readers, q)
	} else if lr, err = readers[0].List(context.Background(), q); err != nil {
		return err
	}
	rows := lr.Rows
	res := Result{Count: len(rows), TotalCount: lr.Total, LimitApplied: o.Limit.Applied(), HasMore: len(rows) < lr.Total, Sessions: rows}
	if fleet {
		if failed == nil {
			failed = []backend.HostError{}
		}
		res.Errors = &failed
	}
	if f.JSONMode() {
		err = printJSON(f, res)
	} else {
		err = printTable(f, rows, lr.MultiAgent, o.Messages > 0, fleet)
	}
	if err == nil && res.HasMore && f.IO.IsStderrTTY() {
		// After the rows, where a person reading a terminal looks last.
		fmt.Fprintf(f.IO.ErrOut, "Showing %d of %d sessions (--limit all for every one)\n", len(rows), lr.Total)
	}
	if err != nil {
		return err
	}
	return cmdutil.ReportHostErrors(f, failed)
}

func printTable(f *cmdutil.Factory, rows []state.Row, multiAgent, withMsgs, fleet bool) error {
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
			var cells []string
			if fleet {
				cells = append(cells, r.Context)
			}
			cells = append(cells, r.Key, r.Kind, r.Channel)
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

// relAge: cmdutil.Ago of the entry's updatedAt, "-" without one.
func relAge(ms *float64, now time.Time) string {
	if ms == nil {
		return "-"
	}
	return cmdutil.Ago(now.Sub(time.UnixMilli(int64(*ms))))
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

// printJSON prints the result exactly as f.PrintJSON does (encoding/json,
// two-space indent, no HTML escaping), but writes the rows directly: with
// 10,000 rows the reflection and the indentation pass of encoding/json over
// the whole document cost as much as reading the store. --jq, a row with
// messages and anything encoding/json would refuse (NaN, ±Inf) go through
// encoding/json; rowFieldsOK guards against Row gaining fields this writer
// does not know.
func printJSON(f *cmdutil.Factory, res Result) error {
	if f.Flags.JQ != "" || !rowFieldsOK || res.Errors != nil {
		return f.PrintJSON(res)
	}
	for i := range res.Sessions {
		r := &res.Sessions[i]
		if !finite(r.UpdatedAt) || !finite(r.ContextTokens) || !finite(r.TotalTokens) {
			return f.PrintJSON(res)
		}
	}
	b, err := appendResult(make([]byte, 0, 64+700*len(res.Sessions)), res)
	if err != nil {
		return err
	}
	_, err = f.IO.Out.Write(b)
	return err
}

func finite(v *float64) bool { return v == nil || !math.IsInf(*v, 0) && !math.IsNaN(*v) }

// appendResult appends the document and its final newline.
func appendResult(b []byte, res Result) ([]byte, error) {
	b = append(b, "{\n  \"count\": "...)
	b = strconv.AppendInt(b, int64(res.Count), 10)
	b = append(b, ",\n  \"totalCount\": "...)
	b = strconv.AppendInt(b, int64(res.TotalCount), 10)
	b = append(b, ",\n  \"limitApplied\": "...)
	if res.LimitApplied != nil {
		b = strconv.AppendInt(b, int64(*res.LimitApplied), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, ",\n  \"hasMore\": "...)
	b = strconv.AppendBool(b, res.HasMore)
	b = append(b, ",\n  \"sessions\": ["...)
	for i := range res.Sessions {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		var err error
		if b, err = appendRow(b, &res.Sessions[i]); err != nil {
			return nil, err
		}
	}
	if len(res.Sessions) > 0 {
		b = append(b, "\n  "...)
	}
	return append(b, "]\n}\n"...), nil
}

// appendRow appends one row at the indentation of a session in the result.
func appendRow(b []byte, r *state.Row) ([]byte, error) {
	for _, m := range r.Messages {
		if !json.Valid(m) {
			return nil, fmt.Errorf("session %s: a prepared message is not valid JSON", r.Key)
		}
	}
	const field = "\n      \""
	str := func(name, v string, always bool) {
		if v != "" || always {
			b = append(b, field...)
			b = append(b, name...)
			b = append(b, "\": "...)
			b = appendString(b, v)
			b = append(b, ',')
		}
	}
	num := func(name string, v *float64) {
		if v != nil {
			b = append(b, field...)
			b = append(b, name...)
			b = append(b, "\": "...)
			b = appendFloat(b, *v)
			b = append(b, ',')
		}
	}
	boolean := func(name string, v *bool) {
		if v != nil {
			b = append(b, field...)
			b = append(b, name...)
			b = append(b, "\": "...)
			b = strconv.AppendBool(b, *v)
			b = append(b, ',')
		}
	}
	b = append(b, '{')
	str("context", r.Context, false)
	str("key", r.Key, true)
	str("kind", r.Kind, true)
	str("channel", r.Channel, true)
	str("agentId", r.AgentID, true)
	str("label", r.Label, false)
	str("displayName", r.DisplayName, false)
	num("updatedAt", r.UpdatedAt)
	str("sessionId", r.SessionID, false)
	str("model", r.Model, false)
	num("contextTokens", r.ContextTokens)
	num("totalTokens", r.TotalTokens)
	str("thinkingLevel", r.ThinkingLevel, false)
	str("verboseLevel", r.VerboseLevel, false)
	boolean("systemSent", r.SystemSent)
	boolean("abortedLastRun", r.AbortedLastRun)
	str("sendPolicy", r.SendPolicy, false)
	str("spawnedBy", r.SpawnedBy, false)
	str("lastChannel", r.LastChannel, false)
	str("lastTo", r.LastTo, false)
	if dc := r.DeliveryContext; dc != nil {
		b = append(b, field...)
		b = append(b, "deliveryContext\": {"...)
		n := len(b)
		for _, kv := range [...][2]string{{"channel", dc.Channel}, {"to", dc.To}, {"accountId", dc.AccountID}} {
			if kv[1] != "" {
				b = append(b, "\n        \""...)
				b = append(b, kv[0]...)
				b = append(b, "\": "...)
				b = appendString(b, kv[1])
				b = append(b, ',')
			}
		}
		if len(b) > n {
			b = append(b[:len(b)-1], "\n      "...)
		}
		b = append(b, "},"...)
	}
	str("transcriptPath", r.TranscriptPath, false)
	if len(r.Messages) > 0 {
		// Prepared messages are valid JSON already (checked above): one per
		// line, as they are, instead of re-compacting and re-indenting them.
		b = append(b, field...)
		b = append(b, "messages\": ["...)
		for i, m := range r.Messages {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n        "...)
			b = append(b, m...)
		}
		b = append(b, "\n      ],"...)
	}
	// Key, kind, channel and agentId are always there: drop the last comma.
	b = append(b[:len(b)-1], "\n    }"...)
	return b, nil
}

// appendFloat is encoding/json's float64 encoding (ES6 number formatting).
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendString is encoding/json's string encoding without HTML escaping:
// '"', '\\' and control characters escaped (\b \f \n \r \t or \u00XX),
// invalid UTF-8 as \ufffd, U+2028 and U+2029 as \u2028 and \u2029.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// rowJSONFields are the JSON names of state.Row and store.DeliveryContext
// that appendRow writes, in order.
var rowJSONFields = []string{
	"context", "key", "kind", "channel", "agentId", "label", "displayName", "updatedAt", "sessionId", "model",
	"contextTokens", "totalTokens", "thinkingLevel", "verboseLevel", "systemSent", "abortedLastRun",
	"sendPolicy", "spawnedBy", "lastChannel", "lastTo", "deliveryContext", "transcriptPath", "messages",
	"deliveryContext.channel", "deliveryContext.to", "deliveryContext.accountId",
}

// rowFieldsOK: state.Row (and DeliveryContext) have exactly the fields
// appendRow writes; otherwise printJSON leaves the rows to encoding/json.
var rowFieldsOK = slices.Equal(jsonFields(reflect.TypeFor[state.Row](), ""), rowJSONFields)

func jsonFields(t reflect.Type, prefix string) []string {
	var out, nested []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "-" || !t.Field(i).IsExported() {
			continue
		}
		out = append(out, prefix+name)
		if ft := t.Field(i).Type; ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
			nested = append(nested, jsonFields(ft.Elem(), prefix+name+".")...)
		}
	}
	return append(out, nested...)
}
