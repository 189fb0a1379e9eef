package searchindex

import (
	"context"
	"os"

	"github.com/openclaw/sessions/internal/search"
)

// Progress is how far an Update has got: of its sources, how many are in
// the index being built, and their bytes (a transcript file's size; a
// store session's share of its database's size, the store read once for
// them all; an archive kept in a store its stored size). A source that did
// not change counts as done at once, so a catch-up or a resumed build
// starts from what is already indexed.
type Progress struct {
	Sources, SourcesDone int
	Bytes, BytesDone     int64
}

type progressKey struct{}

// WithProgress returns a context under which Update tells fn how far it
// has got: once before it reads a source, then after each source (from the
// goroutine that called Update).
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// progress counts an update's sources done, when its context asks.
type progress struct {
	fn    func(Progress)
	sizes []int64 // by position in the update's order
	p     Progress
}

// newProgress sizes the sources srcs[order[k]] (nil: no one asks).
func newProgress(ctx context.Context, srcs []search.Source, order []int) *progress {
	fn, _ := ctx.Value(progressKey{}).(func(Progress))
	if fn == nil {
		return nil
	}
	pr := &progress{fn: fn, sizes: sourceSizes(srcs, order)}
	pr.p.Sources = len(order)
	for _, s := range pr.sizes {
		pr.p.Bytes += s
	}
	fn(pr.p)
	return pr
}

// sourceSizes are the bytes of the sources srcs[order[k]], as Progress
// counts them.
func sourceSizes(srcs []search.Source, order []int) []int64 {
	sizes := make([]int64, len(order))
	stores := map[string][]int{} // a store's sessions, by position
	for k, i := range order {
		src := &srcs[i]
		switch {
		case src.Archive != nil:
			sizes[k] = src.Archive.Bytes
		case src.DB != nil:
			stores[src.DB.Path()] = append(stores[src.DB.Path()], k)
		default:
			if fi, err := os.Stat(src.Path); err == nil {
				sizes[k] = fi.Size()
			}
		}
	}
	for path, ks := range stores {
		var size int64
		if fi, err := os.Stat(path); err == nil {
			size = fi.Size()
		}
		if wi, err := os.Stat(path + "-wal"); err == nil {
			size += wi.Size()
		}
		for j, k := range ks {
			// Shared out whole: the shares add up to the store's size.
			sizes[k] = size/int64(len(ks)) + b2i(int64(j) < size%int64(len(ks)))
		}
	}
	return sizes
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// done says that the source at position k is in the index being built.
func (pr *progress) done(k int) {
	if pr == nil {
		return
	}
	pr.p.SourcesDone++
	pr.p.BytesDone += pr.sizes[k]
	pr.fn(pr.p)
}
