package ops

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/boundary"
	"github.com/openclaw/sessions/internal/hostread"
	srch "github.com/openclaw/sessions/internal/search"
)

// SearchPattern is what is looked for: a literal or a Go (RE2) regular
// expression, with or without case.
type SearchPattern = srch.Query

// SearchRoles are the roles a search can be restricted to.
var SearchRoles = srch.Roles

// SearchQuery is what a search of the transcripts asks for.
type SearchQuery struct {
	Pattern      SearchPattern
	AllAgents    bool     // every agent the requester may see
	Kinds        []string // only sessions of these kinds (empty: all)
	Role         string   // only messages of this role ("tool" implies IncludeTools)
	Since, Until string   // a duration back from now or a date (when.Parse)
	Key, Label   string   // only this session (key or sessionId), or the one labelled so
	IncludeTools bool     // tool results and tool calls too
	// IncludeArchived adds the .deleted/.reset archived transcripts (files,
	// and 2026.9's archives kept in the store) and the orphan transcripts
	// (no entry points to them: source "orphan"); see internal/hostread.
	IncludeArchived bool
	NoIndex         bool // 2026.8+: scan the events even where OpenClaw's index is current
	Limit           int  // at most this many hits (0: all)
	Context         int  // messages before and after each hit
	// Relevance ranks the hits of a words query (Pattern.Words) by BM25
	// relevance, ties newest first (search/rank.go); else newest first.
	Relevance bool
	// Notice gets a line for the person at the terminal: the search
	// started a build of the index in the background (nil: not said).
	Notice func(line string)
}

// SearchResult is the document of `sessions search --json`. Hits is built
// on demand (Fill), or hit by hit (Hit): a front-end that writes them one at
// a time never holds the whole document.
type SearchResult struct {
	Count      int  `json:"count"`
	TotalCount int  `json:"totalCount"`
	HasMore    bool `json:"hasMore"`
	// Partial: a masked search spent its budget (SearchMaskBudget) and
	// stopped; the hits and totalCount are those found so far, and HasMore
	// is true. Never set for a search that is not masked.
	Partial bool        `json:"partial,omitempty"`
	Hits    []SearchHit `json:"hits"`

	found       []srch.Found
	srcs        []srch.Source
	withContext bool
	ranked      bool // hits carry their score
	// m is the agent boundary every hit goes out through (nil: shown as
	// stored); the texts were masked by the search itself
	// (search.Options.Mask) and are not masked twice.
	m *boundary.Masker
	// work is what the search did (search.Work), for the tests that hold
	// an agent's search to the same work whatever it looks for.
	work srch.Work
}

// SearchHit is one hit.
type SearchHit struct {
	Key       string `json:"key,omitempty"`
	Kind      string `json:"kind,omitempty"`
	AgentID   string `json:"agentId"`
	Label     string `json:"label,omitempty"`
	SessionID string `json:"sessionId"`
	ID        string `json:"id,omitempty"`
	Role      string `json:"role"`
	Timestamp *int64 `json:"timestamp,omitempty"`
	Snippet   string `json:"snippet"`
	Match     string `json:"match"`
	Source    string `json:"source"`
	Archived  string `json:"archived,omitempty"`
	// Score is the hit's relevance (--rank relevance): higher is better.
	Score   *float64       `json:"score,omitempty"`
	Context *SearchContext `json:"context,omitempty"`
}

// SearchContext is the messages around a hit (SearchQuery.Context).
type SearchContext struct {
	Before []SearchContextMessage `json:"before"`
	After  []SearchContextMessage `json:"after"`
}

// SearchContextMessage is one message of a hit's context.
type SearchContextMessage struct {
	ID        string `json:"id,omitempty"`
	Role      string `json:"role"`
	Timestamp *int64 `json:"timestamp,omitempty"`
	Text      string `json:"text"`
}

// SearchFromOrphan is a hit's source when its transcript is an orphan (no
// entry points to it): beside "transcript" (a JSONL file of a session or an
// archived copy), "index" and "events" (2026.8+).
const SearchFromOrphan = "orphan"

// SearchMaskBudget is the CPU budget of one masked search (an agent's: --as,
// $OPENCLAW_SESSION_KEY, every MCP sessions_search; and --redact), in bytes
// of text handed to the mask: 256 MiB, several times the demo states and a
// large host's transcripts, some seconds of one core. An agent's search
// parses and masks every line in scope (no byte pre-filter may tell a
// masked secret by its cost), so this, not the query, bounds its work; it
// is counted in bytes, never time, so that where a search stops depends on
// the data in scope only. Past it the search stops and the answer says so
// (partial, hasMore). Context messages (--context) are not counted: they
// are read again from the sources that hold a hit, at most once each.
const SearchMaskBudget = 256 << 20

// SearchMaskMaxLine is the longest line (or event) a masked search reads:
// 1 MiB, where the operator's reads 16 MiB (search.DefaultMaxLine). One
// line is masked whole before it is matched, and masking it is the one
// piece of work the budget cannot cut short: a line of hostile text
// (thousands of `Authorization:` headers) costs up to ~14 µs a byte, so
// a 15 MB line would cost minutes of one core, 1 MiB some seconds at
// worst and ~0.1 s as transcripts are. A longer line is skipped with the
// scan's warning, whatever the query: its length alone decides.
const SearchMaskMaxLine = MaskMaxMessage

// searchMaskBudget is SearchMaskBudget; tests lower it.
var searchMaskBudget int64 = SearchMaskBudget

// Search looks for q.Pattern in the transcripts of the sessions the
// requester may see on this host, newest hits first: JSONL files streamed
// in parallel, and on 2026.8+ OpenClaw's search index where it is current,
// else the store's events. Invalid patterns and times are usage errors
// (exit 2); not through a gateway (exit 2). An unreadable transcript is a
// warning.
func (o *Ops) Search(ctx context.Context, q SearchQuery) (*SearchResult, error) {
	res, err := o.search(ctx, q)
	if res != nil {
		res.m = o.boundary()
	}
	return deliver(o, res, err)
}

// search is Search before the agent boundary.
func (o *Ops) search(ctx context.Context, q SearchQuery) (*SearchResult, error) {
	h, err := o.readHost(ReadSearch)
	if err != nil {
		return nil, err
	}
	so, err := srch.OptionsOf(srch.Ask{Pattern: q.Pattern, Role: q.Role, Since: q.Since, Until: q.Until, IncludeTools: q.IncludeTools, Relevance: q.Relevance}, o.Now())
	if err != nil {
		return nil, err
	}
	if r := o.redactorFor(); r != nil {
		// An agent's search runs on the masked texts: its hits, counts,
		// snippets and context are what it may read, and no query can
		// tell a masked secret from another string.
		so.Mask = r
		so.Budget = searchMaskBudget
		so.MaxLine = SearchMaskMaxLine
	}
	a, err := h.(backend.Searcher).Search(ctx, &hostread.SearchQuery{
		AllAgents: q.AllAgents, Kinds: q.Kinds, Key: q.Key, Label: q.Label, IncludeArchived: q.IncludeArchived, NoIndex: q.NoIndex,
		LabelAs: o.searchRedact(), Options: so, Limit: q.Limit, Context: q.Context,
		Index: o.searchIndex(ctx, q),
	})
	if err != nil {
		return nil, err
	}
	if a.Partial {
		o.warn(fmt.Sprintf("search stopped after masking %s of text, the budget of a masked search: the hits are those found so far (narrow it with --key, --kinds or --since)", sizeOf(so.Budget)))
	}
	return &SearchResult{Count: len(a.Hits), TotalCount: a.Total, HasMore: a.Total > len(a.Hits) || a.Partial,
		Partial: a.Partial, found: a.Hits, srcs: a.Sources, withContext: q.Context > 0, ranked: q.Relevance, work: a.Work}, nil
}

// NoIndexEnv turns the search index off when set to a true value
// (1, true): every search scans, as with --no-index.
const NoIndexEnv = "SESSIONS_NO_INDEX"

// searchIndex is how a search asks the search index (nil: it scans):
// not with --no-index or $SESSIONS_NO_INDEX. A masked search (an agent's,
// --redact) asks an index of the masked text, one per mask and requester.
func (o *Ops) searchIndex(ctx context.Context, q SearchQuery) *hostread.SearchIndex {
	if q.NoIndex || indexOff(o.Getenv(NoIndexEnv)) {
		return nil
	}
	if q.Pattern.Words || q.Relevance {
		// The index selects by one literal or a regex's; a words query
		// (its words in any order) and a ranked one (every message in
		// scope counted) are the scan's.
		o.debug("search: a words or ranked query is answered by the scan, not the index")
		return nil
	}
	x := &hostread.SearchIndex{Ctx: ctx, Pattern: q.Pattern, Debug: func(line string) { o.debug(line) },
		Build: o.indexBackground(q.Notice)}
	if o.masking() {
		x.MaskKey = o.searchMaskKey()
	}
	return x
}

// searchMaskKey names the masked index of this invocation's searches
// (hostread.SearchIndex.MaskKey): the host's redact patterns, the
// requester ("" for the operator's --redact) and whether it is sandboxed. The build a search starts
// in the background names it the same way: it is the same requester.
func (o *Ops) searchMaskKey() string {
	var patterns []string
	if st, err := o.openState(); err == nil && st != nil && st.Cfg != nil {
		patterns = st.Cfg.Logging.RedactPatterns
	}
	as, _ := o.as()
	key := "patterns\x00" + strings.Join(patterns, "\x00") + "\x01requester\x00" + as
	if o.sandboxed() {
		// a sandboxed requester sees fewer transcripts than the same key
		// unsandboxed: an index of its own, not one refitted per call
		key += "\x01sandboxed"
	}
	return key
}

// IndexBackgroundEnv set to a false value (0, false) keeps a search from
// starting a build of the search index in the background: a search that
// finds the index far behind then updates it inline for up to two
// seconds before it scans, as a catch-up does.
const IndexBackgroundEnv = "SESSIONS_INDEX_BACKGROUND"

// indexBackground is how a search has the build of its index started in
// the background by its host (hostread.SearchIndex.Build): one detached `sessions
// index --update --background` for this state dir, at low priority, its
// stdio the null device. A masked search's (an agent's, --redact) builds
// that search's masked index only, so it runs as the same requester —
// `--as KEY` (and `--sandboxed`) on its command line, since the detached
// process inherits neither $OPENCLAW_SESSION_KEY nor $OPENCLAW_SANDBOXED
// — or with --redact. notice is told once it started, for the operator
// only: an agent is not pointed at sessions index, which is not its. nil
// when $SESSIONS_INDEX_BACKGROUND is false: the search updates inline.
func (o *Ops) indexBackground(notice func(string)) *hostread.BackgroundBuild {
	if b, err := strconv.ParseBool(strings.TrimSpace(o.Getenv(IndexBackgroundEnv))); err == nil && !b {
		return nil
	}
	var flags []string
	if as, _ := o.as(); as != "" {
		flags = append(flags, "--as", as)
		notice = nil
	} else if o.cfg.Redact {
		flags = append(flags, "--redact")
	}
	if len(flags) > 0 && o.sandboxed() {
		flags = append(flags, "--sandboxed") // what the requester sees
	}
	return &hostread.BackgroundBuild{Flags: flags, Notice: notice}
}

// indexOff reads $SESSIONS_NO_INDEX.
func indexOff(v string) bool {
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	return err == nil && b
}

// sizeOf is n bytes in MiB when it is a whole number of them.
func sizeOf(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Len is the number of hits (Count).
func (r *SearchResult) Len() int { return len(r.found) }

// Hit is hit i of the document.
func (r *SearchResult) Hit(i int) SearchHit {
	h := &r.found[i]
	src := &r.srcs[h.Src]
	jh := SearchHit{
		Key: src.Key, Kind: src.Kind, AgentID: src.Agent, Label: src.Label, SessionID: src.SessionID,
		ID: h.ID, Role: h.Role, Timestamp: epochMs(h.Timestamp), Snippet: h.Snippet,
		Match: h.Snippet[h.MatchStart:h.MatchEnd], Source: h.From, Archived: src.Archived,
	}
	if src.Orphan {
		jh.Source = SearchFromOrphan
	}
	if r.ranked {
		sc := h.Score
		jh.Score = &sc
	}
	if r.withContext {
		jh.Context = &SearchContext{Before: contextMessages(h.Before), After: contextMessages(h.After)}
	}
	if r.m != nil {
		out, err := boundary.Apply(r.m, jh)
		if err != nil {
			// a plain struct the boundary always walks; were it ever
			// refused, nothing of the hit goes out
			return SearchHit{Snippet: "***", Match: "***"}
		}
		jh = out
	}
	return jh
}

// Fill builds Hits, the whole document.
func (r *SearchResult) Fill() {
	r.Hits = make([]SearchHit, len(r.found))
	for i := range r.found {
		r.Hits[i] = r.Hit(i)
	}
}

// Highlight is hit i's snippet cut around its match.
func (r *SearchResult) Highlight(i int) (before, match, after string) {
	h := &r.found[i]
	before, match, after = h.Snippet[:h.MatchStart], h.Snippet[h.MatchStart:h.MatchEnd], h.Snippet[h.MatchEnd:]
	if r.m != nil {
		// pieces of a masked text: kept as they are by the boundary
		before, match, after = r.m.Text(before), r.m.Text(match), r.m.Text(after)
	}
	return before, match, after
}

// SearchLine is the start of a message's text as a search shows it: at
// most max bytes, cut on a character, line breaks and tabs as spaces, "…"
// where it was cut (search.Snippet).
func SearchLine(text string, max int) string {
	line, _, _ := srch.Snippet(text, 0, 0, 0, max)
	return line
}

func epochMs(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

func contextMessages(in []srch.Message) []SearchContextMessage {
	out := make([]SearchContextMessage, len(in))
	for i, m := range in {
		out[i] = SearchContextMessage{ID: m.ID, Role: m.Role, Timestamp: epochMs(m.Timestamp), Text: m.Text}
	}
	return out
}
