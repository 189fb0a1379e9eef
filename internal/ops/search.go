package ops

import (
	"context"
	"fmt"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/boundary"
	"github.com/openclaw/sessions/internal/hostdoc"
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

	a           *hostread.SearchAnswer // the host's answer each hit is assembled from (SearchAnswer.Hit)
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

// The documents of a search's hits (internal/hostdoc).
type (
	SearchHit            = hostdoc.SearchHit            // one hit
	SearchContext        = hostdoc.SearchContext        // the messages around a hit (SearchQuery.Context)
	SearchContextMessage = hostdoc.SearchContextMessage // one message of a hit's context
)

// SearchFromOrphan is a hit's source when its transcript is an orphan (no
// entry points to it).
const SearchFromOrphan = hostdoc.FromOrphan

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
		Partial: a.Partial, a: a, withContext: q.Context > 0, ranked: q.Relevance, work: a.Work}, nil
}

// NoIndexEnv and IndexBackgroundEnv switch the search index, and its
// builds in the background, off (hostread.IndexFor).
const (
	NoIndexEnv         = hostread.NoIndexEnv
	IndexBackgroundEnv = hostread.IndexBackgroundEnv
)

// searchIndex is how a search asks the search index (nil: it scans;
// hostread.IndexFor decides): a masked search (an agent's, --redact) asks
// an index of the masked text, one per mask and requester, and a build it
// starts in the background runs as that requester.
func (o *Ops) searchIndex(ctx context.Context, q SearchQuery) *hostread.SearchIndex {
	as, _ := o.as()
	ask := hostread.IndexAsk{Ctx: ctx, Pattern: q.Pattern, NoIndex: q.NoIndex, Relevance: q.Relevance, Getenv: o.Getenv,
		Requester: as, Redact: o.cfg.Redact, Sandboxed: o.sandboxed(), Notice: q.Notice, Debug: func(line string) { o.debug(line) }}
	if o.masking() {
		ask.MaskKey = o.searchMaskKey()
	}
	return hostread.IndexFor(ask)
}

// searchMaskKey names the masked index of this invocation's searches
// (hostread.MaskKey): the host's redact patterns, the requester and
// whether it is sandboxed.
func (o *Ops) searchMaskKey() string {
	as, _ := o.as()
	return hostread.MaskKey(o.where.RedactPatterns(), as, o.sandboxed())
}

// sizeOf is n bytes in MiB when it is a whole number of them.
func sizeOf(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Len is the number of hits (Count).
func (r *SearchResult) Len() int {
	if r.a == nil {
		return 0
	}
	return len(r.a.Hits)
}

// Hit is hit i of the document.
func (r *SearchResult) Hit(i int) SearchHit {
	jh := r.a.Hit(i, r.withContext, r.ranked)
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
	r.Hits = make([]SearchHit, r.Len())
	for i := range r.Hits {
		r.Hits[i] = r.Hit(i)
	}
}

// Highlight is hit i's snippet cut around its match.
func (r *SearchResult) Highlight(i int) (before, match, after string) {
	before, match, after = r.a.Highlight(i)
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
