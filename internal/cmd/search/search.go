// Package search implements `sessions search QUERY`.
package search

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/output"
	"github.com/openclaw/sessions/internal/policy"
	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/when"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `sessions search`.
type Options struct {
	f               *cmdutil.Factory
	Query           srch.Query
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
}

// NewCmd builds the command; runF replaces the behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	var kinds, limit string
	cmd := &cobra.Command{
		Use:   "search QUERY [flags]",
		Short: "Search transcripts for a text, newest hits first",
		Long: `Search the transcripts of the requester's agent (or --agent ID, or
--all-agents) for QUERY: a literal by default, a Go (RE2) regular expression
with --regex; --ignore-case for both. The text searched is what OpenClaw's own
transcript index holds: the text of user and assistant messages (thinking
blocks and images are not searched); --include-tools adds tool results and
tool calls (name and arguments).

Both storage eras: JSONL transcripts are streamed in parallel, a literal found
with a byte search before any line is parsed; on OpenClaw 2026.8+ (SQLite
store) OpenClaw's search index is read where it is current for the session,
else the transcript events (and cold archives). --no-index always scans the
events. --include-archived adds the .deleted/.reset archived transcripts (files,
zstd-compressed or not, and 2026.9's archives kept in the store).

The requester's visibility applies: agent-to-agent policy, and a sandboxed
requester finds only the sessions it spawned.

JSON (--json): {"count","totalCount","hasMore","hits":[hit...]}; a hit has
key, kind, agentId, label, sessionId, id (the entry id), role (user,
assistant, tool), timestamp (epoch ms), snippet, match (the matched text),
source (transcript, index, events), archived (the archive's file name) and,
with -C N, context {"before":[m...],"after":[m...]} (m: id, role, timestamp,
text).

Piped without --json, one tab-separated line per hit: key, agentId,
sessionId, id, role, timestamp (RFC 3339), snippet.`,
		Example: `  sessions search deploy
  sessions search --all-agents --since 7d -i "disk full"
  sessions search --regex 'error [0-9]{3}' --role assistant --json
  sessions search hello -C 2 --limit 5`,
		Args: cmdutil.ExactArgs(1, "QUERY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Query.Pattern = args[0]
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
			if o.Role != "" && !slices.Contains(srch.Roles, o.Role) {
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
			if runF != nil {
				return runF(o)
			}
			return run(o)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&o.Query.Regex, "regex", false, "QUERY is a Go (RE2) regular expression")
	fl.BoolVarP(&o.Query.IgnoreCase, "ignore-case", "i", false, "match regardless of case")
	fl.BoolVar(&o.AllAgents, "all-agents", false, "search the sessions of every agent")
	fl.StringVar(&kinds, "kinds", "", "only sessions of these kinds, comma-separated: main,group,cron,hook,node,other")
	fl.StringVar(&o.Role, "role", "", "only messages of this `ROLE`: user, assistant, tool (tool implies --include-tools)")
	fl.StringVar(&o.Since, "since", "", "only messages from `WHEN` on: a duration back from now (30m, 2h, 7d, 2w) or a date (2026-11-20, RFC 3339)")
	fl.StringVar(&o.Until, "until", "", "only messages up to `WHEN` (same forms; a date includes that whole day)")
	fl.StringVar(&o.Key, "key", "", "only the session `KEY` (or sessionId)")
	fl.StringVar(&o.Label, "label", "", "only the session labelled `L`")
	fl.BoolVar(&o.IncludeTools, "include-tools", false, "search tool results and tool calls too")
	fl.BoolVar(&o.IncludeArchived, "include-archived", false, "also search the .deleted/.reset archived transcripts")
	fl.BoolVar(&o.NoIndex, "no-index", false, "2026.8+: scan the transcript events even where OpenClaw's search index is current")
	fl.StringVar(&limit, "limit", "50", "at most `N` hits (or all); totalCount says how many there are")
	fl.IntVarP(&o.Context, "context", "C", 0, "show `N` messages before and after each hit")
	_ = cmd.RegisterFlagCompletionFunc("kinds", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return keys.Kinds, cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("role", cmdutil.FixedCompletions(srch.Roles...))
	_ = cmd.RegisterFlagCompletionFunc("key", func(_ *cobra.Command, _ []string, tc string) ([]string, cobra.ShellCompDirective) {
		return f.SessionKeys(tc)
	})
	_ = cmd.RegisterFlagCompletionFunc("label", func(_ *cobra.Command, _ []string, tc string) ([]string, cobra.ShellCompDirective) {
		return f.Labels(tc)
	})
	_ = cmd.RegisterFlagCompletionFunc("limit", cmdutil.FixedCompletions("all"))
	return cmd
}

// Result is the JSON document of `sessions search`.
type Result struct {
	Count      int   `json:"count"`
	TotalCount int   `json:"totalCount"`
	HasMore    bool  `json:"hasMore"`
	Hits       []Hit `json:"hits"`
}

// Hit is one hit in the JSON document.
type Hit struct {
	Key       string   `json:"key,omitempty"`
	Kind      string   `json:"kind,omitempty"`
	AgentID   string   `json:"agentId"`
	Label     string   `json:"label,omitempty"`
	SessionID string   `json:"sessionId"`
	ID        string   `json:"id,omitempty"`
	Role      string   `json:"role"`
	Timestamp *int64   `json:"timestamp,omitempty"`
	Snippet   string   `json:"snippet"`
	Match     string   `json:"match"`
	Source    string   `json:"source"`
	Archived  string   `json:"archived,omitempty"`
	Context   *Context `json:"context,omitempty"`
}

// Context is the messages around a hit (-C N).
type Context struct {
	Before []ContextMessage `json:"before"`
	After  []ContextMessage `json:"after"`
}

// ContextMessage is one message of a hit's context.
type ContextMessage struct {
	ID        string `json:"id,omitempty"`
	Role      string `json:"role"`
	Timestamp *int64 `json:"timestamp,omitempty"`
	Text      string `json:"text"`
}

func run(o *Options) error {
	f := o.f
	m, err := srch.Compile(o.Query)
	if err != nil {
		return apperr.Usagef("%v", err)
	}
	now := f.Now()
	since, err := when.Parse(o.Since, now, time.Local, false)
	if err != nil {
		return apperr.Usagef("invalid --since: %v", err)
	}
	until, err := when.Parse(o.Until, now, time.Local, true)
	if err != nil {
		return apperr.Usagef("invalid --until: %v", err)
	}
	if since != 0 && until != 0 && since >= until {
		return apperr.Usagef("--since is after --until")
	}
	so := &srch.Options{Matcher: m, IncludeTools: o.IncludeTools || o.Role == "tool", Since: since, Until: until}
	if o.Role != "" {
		so.Roles = []string{o.Role}
	}
	s, err := f.State()
	if err != nil {
		return err
	}
	srcs, err := sources(s, o)
	if err != nil {
		return err
	}
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		// No GOMEMLIMIT: keep the heap near what a search holds (a buffer
		// per worker and the hits kept) by collecting garbage sooner.
		debug.SetMemoryLimit(memoryLimit)
	}
	res := srch.Run(srcs, so, o.Limit, o.Context, 0)
	for _, w := range res.Warnings {
		f.Warn(w)
	}
	head := Result{Count: len(res.Hits), TotalCount: res.Total, HasMore: res.Total > len(res.Hits)}
	hit := func(i int) Hit { return toHit(&res.Hits[i], srcs, o.Context > 0) }
	if f.JSONMode() && f.Flags.JQ == "" {
		return writeJSON(f.IO.Out, head, len(res.Hits), hit)
	}
	doc := head
	doc.Hits = make([]Hit, len(res.Hits))
	for i := range res.Hits {
		doc.Hits[i] = hit(i)
	}
	if f.JSONMode() {
		return f.PrintJSON(doc)
	}
	return printText(f, doc, res.Hits)
}

// memoryLimit is the Go runtime's soft memory limit during a search.
const memoryLimit = 40 << 20

func toHit(h *srch.Found, srcs []srch.Source, withContext bool) Hit {
	src := &srcs[h.Src]
	jh := Hit{
		Key: src.Key, Kind: src.Kind, AgentID: src.Agent, Label: src.Label, SessionID: src.SessionID,
		ID: h.ID, Role: h.Role, Timestamp: ms(h.Timestamp), Snippet: h.Snippet,
		Match: h.Snippet[h.MatchStart:h.MatchEnd], Source: h.From, Archived: src.Archived,
	}
	if withContext {
		jh.Context = &Context{Before: ctxMsgs(h.Before), After: ctxMsgs(h.After)}
	}
	return jh
}

// writeJSON writes the document exactly as f.PrintJSON would (two-space
// indent, no HTML escaping), one hit at a time: `--limit all` with many
// hits never holds the whole document in memory.
func writeJSON(w io.Writer, head Result, n int, hit func(int) Hit) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "{\n  \"count\": %d,\n  \"totalCount\": %d,\n  \"hasMore\": %t,\n  \"hits\": [", head.Count, head.TotalCount, head.HasMore)
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

func ms(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

func ctxMsgs(in []srch.Message) []ContextMessage {
	out := make([]ContextMessage, len(in))
	for i, m := range in {
		out[i] = ContextMessage{ID: m.ID, Role: m.Role, Timestamp: ms(m.Timestamp), Text: m.Text}
	}
	return out
}

// archiveRe names archived transcripts: <sessionId>.jsonl.deleted.<time> or
// .reset.<time> (OpenClaw 2026.9 adds .<generation> and, compressed, .zst).
var archiveRe = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)\.jsonl\.(deleted|reset)\.[^/]+$`)

// sources lists what is searched, agent by agent, each agent's sessions
// newest first.
func sources(s *state.State, o *Options) ([]srch.Source, error) {
	var only *state.Target
	if o.Key != "" {
		t, err := s.Resolve(o.Key, policy.OpHistory)
		if err != nil {
			return nil, err
		}
		only = t
	}
	agents, err := s.AgentsInScope(o.AllAgents)
	if err != nil {
		return nil, err
	}
	if only != nil {
		agents = []string{only.Agent}
	}
	var out []srch.Source
	seen := map[string]bool{}
	labelled := false
	for _, agent := range agents {
		st, entries, err := s.Entries(agent)
		if err != nil {
			if len(agents) > 1 {
				s.Warnf(err.Error())
				continue
			}
			return nil, err
		}
		sqlite := state.IsSQLite(st)
		var current map[string]bool
		if sqlite && !o.NoIndex {
			if db := s.SQLiteDB(agent); db != nil {
				if current, err = db.FTSCurrent(); err != nil {
					s.Warnf(fmt.Sprintf("OpenClaw's search index of agent %s: %v; scanning the events", agent, err))
				}
			}
		}
		entries = slices.Clone(entries)
		slices.SortStableFunc(entries, func(a, b *store.Entry) int { return cmp.Compare(b.Updated(), a.Updated()) })
		bySession := map[string]srch.Source{}
		byKey := map[string]srch.Source{} // the sessions searched, by stored key
		for _, e := range entries {
			if !s.Listable(e.Key) || !s.Visible(e) || e.SessionID == "" {
				continue
			}
			if only != nil && e != only.Entry {
				continue
			}
			r := s.Row(agent, st, e)
			if o.Label != "" {
				if r.Label != o.Label {
					continue
				}
				labelled = true
			}
			if len(o.Kinds) > 0 && !slices.Contains(o.Kinds, r.Kind) {
				continue
			}
			src := srch.Source{Agent: agent, Key: r.Key, Kind: r.Kind, Label: r.Label, SessionID: e.SessionID}
			byKey[e.Key] = src
			bySession[e.SessionID] = src
			if sqlite {
				src.DB = s.SQLiteDB(agent)
				src.Index = current[e.SessionID]
				if id := "db:" + agent + ":" + e.SessionID; !seen[id] {
					seen[id] = true
					out = append(out, src)
				}
				continue
			}
			tp, err := s.Transcript(agent, st, e)
			if err != nil {
				s.Warnf(err.Error())
				continue
			}
			if !tp.Exists || seen[tp.Path] {
				continue
			}
			seen[tp.Path] = true
			src.Path = tp.Path
			out = append(out, src)
		}
		if o.IncludeArchived && !s.Req.Restrict {
			if sqlite {
				out = append(out, storeArchives(s, agent, byKey, o, seen)...)
			}
			out = append(out, archived(s, agent, st, bySession, o, seen)...)
		}
	}
	if o.Label != "" && !labelled {
		return nil, apperr.NotFoundf("No session with label: %s", o.Label)
	}
	return out, nil
}

// storeArchives lists the archived transcripts an OpenClaw 2026.9 store
// keeps (session_transcript_archives), newest first; they carry the key of
// their session, and are left out of a search restricted to sessions
// (--key, --label, --kinds) unless that session is searched. Their names
// are marked seen: the same archive published as a file is not read twice.
func storeArchives(s *state.State, agent string, byKey map[string]srch.Source, o *Options, seen map[string]bool) []srch.Source {
	db := s.SQLiteDB(agent)
	if db == nil {
		return nil
	}
	arcs, err := db.Archives()
	if err != nil {
		s.Warnf(fmt.Sprintf("transcript archives of agent %s: %v", agent, err))
		return nil
	}
	var out []srch.Source
	for i := range arcs {
		a := &arcs[i]
		src, known := byKey[a.SessionKey]
		if !known {
			if o.Key != "" || o.Label != "" || len(o.Kinds) > 0 || !s.Listable(a.SessionKey) {
				continue
			}
			src = srch.Source{Agent: agent, Key: s.DisplayKey(a.SessionKey), Kind: keys.Kind(a.SessionKey, "")}
		}
		src.SessionID, src.Archived, src.Archive, src.DB, src.Index = a.SessionID, a.Name, a, db, false
		seen["archive:"+agent+":"+a.Name] = true
		out = append(out, src)
	}
	return out
}

// archived lists the .deleted/.reset transcripts of an agent's sessions
// dirs, newest name first. One whose sessionId is a current session's
// carries its key; others have none and are left out when the search is
// restricted to sessions (--key, --label, --kinds).
func archived(s *state.State, agent string, st *store.Store, bySession map[string]srch.Source, o *Options, seen map[string]bool) []srch.Source {
	dirs := []string{s.SessionsDir(agent)}
	if st != nil && st.Path != "" {
		if d := filepath.Dir(st.Path); d != dirs[0] {
			dirs = append(dirs, d)
		}
	}
	var out []srch.Source
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		var names []string
		for _, de := range ents {
			if de.Type().IsRegular() && archiveRe.MatchString(de.Name()) {
				names = append(names, de.Name())
			}
		}
		slices.Sort(names)
		slices.Reverse(names)
		for _, name := range names {
			p := filepath.Join(dir, name)
			if seen[p] || seen["archive:"+agent+":"+name] {
				continue
			}
			id := archiveRe.FindStringSubmatch(name)[1]
			src, known := bySession[id]
			if !known {
				if o.Key != "" || o.Label != "" || len(o.Kinds) > 0 {
					continue
				}
				src = srch.Source{Agent: agent, SessionID: id}
			}
			seen[p] = true
			src.Path, src.Archived, src.Zstd = p, name, strings.HasSuffix(name, ".zst")
			src.DB, src.Index = nil, false
			out = append(out, src)
		}
	}
	return out
}

func printText(f *cmdutil.Factory, doc Result, hits []srch.Found) error {
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
		return cmdutil.Ago(now.Sub(time.UnixMilli(*ts)))
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
		ctx := func(ms []ContextMessage) {
			for _, m := range ms {
				line, _, _ := srch.Snippet(m.Text, 0, 0, 0, 100)
				fmt.Fprintf(&b, "    %s %s\n", cs.Gray("·"), cs.Gray(m.Role+": "+line))
			}
		}
		if h.Context != nil {
			ctx(h.Context.Before)
		}
		sn := hits[i]
		fmt.Fprintf(&b, "    %s%s%s\n", sn.Snippet[:sn.MatchStart], cs.Bold(sn.Snippet[sn.MatchStart:sn.MatchEnd]), sn.Snippet[sn.MatchEnd:])
		if h.Context != nil {
			ctx(h.Context.After)
		}
	}
	if doc.HasMore {
		fmt.Fprintf(&b, "%s\n", cs.Gray(fmt.Sprintf("%d of %d hits (--limit all for every one)", doc.Count, doc.TotalCount)))
	}
	_, err := io.Out.Write([]byte(b.String()))
	return err
}
