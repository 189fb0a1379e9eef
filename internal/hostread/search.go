package hostread

import (
	"github.com/openclaw/sessions/internal/hostdoc"
	"math"
	"runtime/debug"

	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/state"
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

// searchMemoryLimit is the Go runtime's soft memory limit during a search.
const searchMemoryLimit = 40 << 20

// Search looks for q in the transcripts of the sessions the requester of
// s may see: JSONL files streamed in parallel, and on 2026.8+ OpenClaw's
// search index where it is current, else the store's events. The scan's
// warnings are in the answer.
func Search(s *state.State, q *SearchQuery) (*SearchAnswer, error) {
	srcs, lazy, err := searchSources(s, q, q.LabelAs)
	if err != nil {
		return nil, err
	}
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		// No GOMEMLIMIT: keep the heap near what a search holds (a buffer
		// per worker and the hits kept) by collecting garbage sooner.
		debug.SetMemoryLimit(searchMemoryLimit)
	}
	var res *srch.Result
	if q.Index != nil && !q.NoIndex {
		res = searchIndexed(s, q, srcs)
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
