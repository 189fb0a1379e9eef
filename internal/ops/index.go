package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostread"
	"github.com/openclaw/sessions/internal/searchindex"
)

// ReadIndex is `sessions index`: the search index kept for this host's
// state dir, a host-only read like search.
var ReadIndex = &HostRead{"index", implements[backend.SearchIndexKeeper]}

// IndexRequest is what `sessions index` asks: the index's status, after
// at most one action.
type IndexRequest struct {
	// Update brings the index up to date now (builds it, or goes on with
	// an interrupted build); Rebuild throws it away and builds it again;
	// Remove removes it and its masked siblings.
	Update, Rebuild, Remove bool
	// Progress is told a build's bytes done and total (nil: not told).
	Progress func(done, total int64)
	// Background is Update as the build a search starts in the
	// background runs it (hostread.IndexQuery.Background): nothing when
	// another process updates the index, stopped when the state dir goes
	// away; the result holds no status of the indexes. For a requester
	// (or with --redact) it builds the masked index that requester's
	// searches read, and nothing else: the one use of Index a requester
	// may make.
	Background bool
}

// IndexResult is the document of `sessions index --json`.
type IndexResult struct {
	StateDir string `json:"stateDir"`
	CacheDir string `json:"cacheDir"`
	// Transcripts is how many the state dir holds: what the index is
	// kept up to.
	Transcripts int `json:"transcripts"`
	// Disabled: $SESSIONS_NO_INDEX is set, so search scans and leaves the
	// index as it is.
	Disabled bool `json:"disabled"`
	// Index is the operator's index (null: there is none).
	Index *IndexStatus `json:"index"`
	// Masked are the indexes of masked text kept for agents' searches.
	Masked []IndexStatus `json:"masked"`
	// Updated is what --update or --rebuild did; Removed what --remove
	// removed.
	Updated *IndexUpdate `json:"updated,omitempty"`
	Removed []string     `json:"removed,omitempty"`
}

// IndexStatus is one index on disk.
type IndexStatus struct {
	Dir       string `json:"dir"`
	SizeBytes int64  `json:"sizeBytes"`
	// Built: brought up to date at least once (else empty so far).
	Built    bool `json:"built"`
	Sources  int  `json:"sources"`
	Messages int  `json:"messages"`
	// TextBytes are the transcript bytes it covers.
	TextBytes int64 `json:"textBytes"`
	UpdatedAt int64 `json:"updatedAt,omitempty"` // ms since the epoch
	// Changed: transcripts new, changed or gone since (the operator's
	// index only); Fresh when none.
	Changed *int  `json:"changed,omitempty"`
	Fresh   *bool `json:"fresh,omitempty"`
	// Corrupt says why it cannot be read: the next search rebuilds it.
	Corrupt string `json:"corrupt,omitempty"`
	// Updating: a process is updating it now — a build a search started
	// in the background, or another update (the operator's index only).
	Updating bool `json:"updating,omitempty"`
}

// IndexUpdate is what an update of the index did, in transcripts.
type IndexUpdate struct {
	Unchanged  int      `json:"unchanged"`
	Appended   int      `json:"appended"`
	Whole      int      `json:"indexedWhole"`
	Removed    int      `json:"removed"`
	Unreadable []string `json:"unreadable"`
	Segments   int      `json:"segments"`
}

// Index shows the search index of this host's state dir and, as asked,
// brings it up to date, rebuilds or removes it. The host operator only
// (but for a masked search's background build, IndexRequest.Background);
// not through a gateway (exit 2).
func (o *Ops) Index(ctx context.Context, q IndexRequest) (*IndexResult, error) {
	v, err := o.index(ctx, q)
	return deliver(o, v, err)
}

// index is Index before the agent boundary.
func (o *Ops) index(ctx context.Context, q IndexRequest) (*IndexResult, error) {
	h, err := o.readHost(ReadIndex)
	if err != nil {
		return nil, err
	}
	hq := hostread.IndexQuery{Update: q.Update, Rebuild: q.Rebuild, Remove: q.Remove, LockTimeout: o.cfg.LockTimeout, Background: q.Background}
	if q.Background && o.masking() {
		// the build a masked search started: that search's masked index,
		// under its mask and key, over what the requester may see
		hq.Mask, hq.MaskKey, hq.LabelAs = o.redactorFor(), o.searchMaskKey(), o.searchRedact()
	}
	if q.Progress != nil {
		hq.Progress = func(p searchindex.Progress) { q.Progress(p.BytesDone, p.Bytes) }
	}
	a, err := h.(backend.SearchIndexKeeper).SearchIndex(ctx, hq)
	if err != nil {
		return nil, err
	}
	res := &IndexResult{StateDir: a.StateDir, CacheDir: a.CacheDir, Transcripts: a.Sources, Masked: []IndexStatus{}, Removed: a.Removed,
		Disabled: indexOff(o.Getenv(NoIndexEnv))}
	for _, st := range a.Indexes {
		row := IndexStatus{Dir: st.Dir, SizeBytes: st.Size, Built: st.Built, Sources: st.Sources, Messages: st.Messages,
			TextBytes: st.Bytes, Corrupt: st.Corrupt}
		if !st.Updated.IsZero() {
			row.UpdatedAt = st.Updated.UnixMilli()
		}
		if st.Changed >= 0 {
			changed, fresh := st.Changed, st.Changed == 0 && st.Corrupt == ""
			row.Changed, row.Fresh = &changed, &fresh
		}
		if st.Masked {
			res.Masked = append(res.Masked, row)
		} else if res.Index == nil {
			row.Updating = a.Updating
			res.Index = &row
		}
	}
	if s := a.Stats; s != nil {
		res.Updated = &IndexUpdate{Unchanged: s.Unchanged, Appended: s.Appended, Whole: s.Whole, Removed: s.Removed,
			Unreadable: append([]string{}, s.Unreadable...), Segments: s.Segments}
	}
	return res, nil
}
