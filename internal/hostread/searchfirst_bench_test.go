package hostread

import (
	"context"
	"os"
	"testing"

	"github.com/openclaw/sessions/internal/sanitize"
	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil/bigstate"
)

// searchFirst is `search --all-agents --include-archived --limit 20` of
// the rare word from the index in cache, as a first search finds it (bg:
// how a build in the background is started; nil: none, the update runs
// inline). It returns the hits.
func searchFirst(b *testing.B, s *state.State, cache string, bg func() error) int {
	return searchFirstAs(b, s, cache, bg, false)
}

// searchFirstAs is searchFirst, as an agent's search when masked: the
// text masked (the default patterns), its budget and longest line as
// ops sets them, from the masked index of one mask key. cache "": the
// scan alone.
func searchFirstAs(b *testing.B, s *state.State, cache string, bg func() error, masked bool) int {
	m, err := srch.Compile(srch.Query{Pattern: bigstate.Rare})
	if err != nil {
		b.Fatal(err)
	}
	o := &srch.Options{Matcher: m}
	var x *SearchIndex
	if cache != "" {
		x = &SearchIndex{Pattern: srch.Query{Pattern: bigstate.Rare}, CacheDir: cache, Background: bg}
	}
	if masked {
		o.Mask, o.Budget, o.MaxLine = sanitize.NewRedactor(nil, nil), 256<<20, 1<<20
		if x != nil {
			x.MaskKey = "bench mask"
		}
	}
	q := &SearchQuery{AllAgents: true, IncludeArchived: true, Options: o, Limit: 20, Index: x}
	a, err := Search(s, q)
	if err != nil {
		b.Fatal(err)
	}
	return a.Total
}

// freshCache empties the cache of indexes (not timed): every search of a
// first-search benchmark finds no index.
func freshCache(b *testing.B, cache string) {
	b.StopTimer()
	defer b.StartTimer()
	if err := CloseIndexes(); err != nil {
		b.Fatal(err)
	}
	if err := os.RemoveAll(cache); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSearchFirst: the first search of a state whose index was never
// built (the generated state: 10,000 sessions, both eras), side by side —
// scan: the scan alone (--no-index); inline: the search updating the
// index before it answers, for up to indexWait, then scanning (what every
// search paid before a far-behind index was left to a background build);
// background: the search weighing the backlog (searchindex.Backlog), then
// scanning and starting a build in the background (here a function that
// counts the starts); build: the whole first build, what the background
// process does once (its bytes/s against the scan's set scanPerIndex).
func BenchmarkSearchFirst(b *testing.B) {
	s, _ := benchState(b, false)
	want := searchFirst(b, s, "", nil)
	all, err := indexSources(s, nil)
	if err != nil {
		b.Fatal(err)
	}
	cache := b.TempDir()
	ix, err := openIndex(s, &SearchIndex{CacheDir: cache}, nil)
	if err != nil {
		b.Fatal(err)
	}
	bl, err := ix.Backlog(all)
	if err != nil {
		b.Fatal(err)
	}
	total := bl.Total
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			m, _ := srch.Compile(srch.Query{Pattern: bigstate.Rare})
			a, err := Search(s, &SearchQuery{AllAgents: true, IncludeArchived: true, Options: &srch.Options{Matcher: m}, Limit: 20})
			if err != nil || a.Total != want {
				b.Fatalf("%v: %d hits, want %d", err, a.Total, want)
			}
		}
	})
	b.Run("inline", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			freshCache(b, cache)
			if got := searchFirst(b, s, cache, nil); got != want {
				b.Fatalf("%d hits, want %d", got, want)
			}
		}
	})
	b.Run("background", func(b *testing.B) {
		b.SetBytes(total)
		starts := 0
		for b.Loop() {
			freshCache(b, cache)
			if got := searchFirst(b, s, cache, func() error { starts++; return nil }); got != want {
				b.Fatalf("%d hits, want %d", got, want)
			}
		}
		if starts != b.N {
			b.Fatalf("%d builds started in %d first searches", starts, b.N)
		}
	})
	b.Run("build", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			freshCache(b, cache)
			ix, err := openIndex(s, &SearchIndex{CacheDir: cache}, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ix.Update(context.Background(), all); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSearchFirstMasked is BenchmarkSearchFirst's scan, inline and
// background for an agent's search (masked text, its own masked index),
// side by side: before, an agent's search always updated its index
// inline (up to indexWait) and then scanned; now it scans at once and
// starts the build of its masked index in the background.
func BenchmarkSearchFirstMasked(b *testing.B) {
	s, _ := benchState(b, false)
	want := searchFirstAs(b, s, "", nil, true)
	cache := b.TempDir()
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			if got := searchFirstAs(b, s, "", nil, true); got != want {
				b.Fatalf("%d hits, want %d", got, want)
			}
		}
	})
	b.Run("inline", func(b *testing.B) {
		for b.Loop() {
			freshCache(b, cache)
			if got := searchFirstAs(b, s, cache, nil, true); got != want {
				b.Fatalf("%d hits, want %d", got, want)
			}
		}
	})
	b.Run("background", func(b *testing.B) {
		starts := 0
		for b.Loop() {
			freshCache(b, cache)
			if got := searchFirstAs(b, s, cache, func() error { starts++; return nil }, true); got != want {
				b.Fatalf("%d hits, want %d", got, want)
			}
		}
		if starts != b.N {
			b.Fatalf("%d builds started in %d first searches", starts, b.N)
		}
	})
}
