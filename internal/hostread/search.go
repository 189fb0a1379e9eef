package hostread

import (
	"github.com/openclaw/sessions/internal/hostdoc"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcripts"
)

// SearchQuery is a search of this host's transcripts: which transcripts
// (the scope, sources.go) and what a line must be to be a hit (Options).
// An index that answers the same query may later take the scan's place:
// the query says what is looked for, never how it is found.
type SearchQuery struct {
	AllAgents bool     // every agent the requester may see
	Kinds     []string // only sessions of these kinds (empty: all)
	// Key, Label: only this session (key or sessionId), or the one
	// labelled so (as LabelAs gives it).
	Key, Label string
	// IncludeArchived adds the .deleted/.reset archived transcripts (files,
	// and 2026.9's archives kept in the store) and the orphan transcripts.
	IncludeArchived bool
	NoIndex         bool // 2026.8+: scan the events even where OpenClaw's index is current
	// LabelAs is a label as the requester reads it (nil: as stored): Label
	// matches that, so that an agent, which reads labels masked, cannot
	// learn a masked label by guessing it.
	LabelAs func(string) string

	// Index: answer from the search index when it can (nil: scan).
	Index *SearchIndex

	// Options are what a line must match, the roles and times, and for
	// an agent the mask, its budget and the longest line.
	Options *srch.Options
	Limit   int // at most this many hits (0: all)
	Context int // messages before and after each hit
}

// SearchAnswer is what a search found: the hits, newest first, and the
// sources they index (Found.Src).
type SearchAnswer struct {
	*srch.Result
	Sources []srch.Source
}

// searchMemoryLimit is what a search may hold on the heap above what the
// process held live before it: the Go runtime's soft memory limit during
// a search is that much over the live heap.
const searchMemoryLimit = 40 << 20

// searchLimit is the memory limit the last search set (0: none).
var (
	limitMu     sync.Mutex
	searchLimit int64
)

// limitMemory sets the runtime's soft memory limit for a search: no
// GOMEMLIMIT (nor a limit the front-end set: the UI's) — keep the heap
// near what a search holds (a buffer per worker and the hits kept) by
// collecting garbage sooner — at searchMemoryLimit over the live heap.
// A limit at a fixed 40 MiB held below what a warm process keeps live
// (the listing of a 10,000-session state, its open index: ~50 MB) ran the
// collector after every megabyte allocated, a full mark each time.
func limitMemory() {
	limitMu.Lock()
	defer limitMu.Unlock()
	if cur := debug.SetMemoryLimit(-1); cur != math.MaxInt64 && cur != searchLimit {
		return
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	searchLimit = searchMemoryLimit
	if live[0].Value.Kind() == metrics.KindUint64 {
		searchLimit += int64(min(live[0].Value.Uint64(), math.MaxInt64/2))
	}
	debug.SetMemoryLimit(searchLimit)
}

// Search looks for q in the transcripts of the sessions the requester of
// s may see: JSONL files streamed in parallel, and on 2026.8+ OpenClaw's
// search index where it is current, else the store's events. The scan's
// warnings are in the answer.
func Search(s *state.State, q *SearchQuery) (*SearchAnswer, error) {
	// the agents read for the query are the index catch-up's too: one
	// read of each store, one listing of each directory
	reads := map[string]*transcripts.Agent{}
	endBurst := func() {}
	defer func() { endBurst() }()
	srcs, lazy, err := searchSourcesReusing(s, q, q.LabelAs, reads, &endBurst)
	if err != nil {
		return nil, err
	}
	limitMemory()
	var res *srch.Result
	if q.Index != nil && !q.NoIndex {
		res = searchIndexed(s, q, srcs, reads)
	}
	if res == nil {
		res = srch.Run(srcs, q.Options, q.Limit, q.Context, 0)
	}
	orphanKeys(s, srcs, res.Hits, lazy)
	return &SearchAnswer{Result: res, Sources: srcs}, nil
}

// Hit is hit i of the answer as the document shows it (with its context
// messages when withContext, its score when ranked).
func (a *SearchAnswer) Hit(i int, withContext, ranked bool) hostdoc.SearchHit {
	h := &a.Hits[i]
	src := &a.Sources[h.Src]
	jh := hostdoc.SearchHit{
		Key: src.Key, Kind: src.Kind, AgentID: src.Agent, Label: src.Label, SessionID: src.SessionID,
		ID: h.ID, Role: h.Role, Timestamp: epochMs(h.Timestamp), Snippet: h.Snippet,
		Match: h.Snippet[h.MatchStart:h.MatchEnd], Source: h.From, Archived: src.Archived,
	}
	if src.Orphan {
		jh.Source = hostdoc.FromOrphan
	}
	if ranked {
		sc := h.Score
		jh.Score = &sc
	}
	if withContext {
		jh.Context = &hostdoc.SearchContext{Before: contextMessages(h.Before), After: contextMessages(h.After)}
	}
	return jh
}

// Highlight is hit i's snippet cut around its match.
func (a *SearchAnswer) Highlight(i int) (before, match, after string) {
	h := &a.Hits[i]
	return h.Snippet[:h.MatchStart], h.Snippet[h.MatchStart:h.MatchEnd], h.Snippet[h.MatchEnd:]
}

func epochMs(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

func contextMessages(in []srch.Message) []hostdoc.SearchContextMessage {
	out := make([]hostdoc.SearchContextMessage, len(in))
	for i, m := range in {
		out[i] = hostdoc.SearchContextMessage{ID: m.ID, Role: m.Role, Timestamp: epochMs(m.Timestamp), Text: m.Text}
	}
	return out
}
