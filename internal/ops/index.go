package ops

import (
	"context"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/hostdoc"
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

// The documents of `sessions index --json` (internal/hostdoc).
type (
	IndexResult = hostdoc.IndexResult // the document
	IndexStatus = hostdoc.IndexStatus // one index on disk
	IndexUpdate = hostdoc.IndexUpdate // what an update of the index did, in transcripts
)

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
	return a.Doc(hostread.IndexOff(o.Getenv(NoIndexEnv))), nil
}
