package hostread

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/bigstate"
	"github.com/openclaw/sessions/internal/testutil/rusage"
	"github.com/openclaw/sessions/internal/transcripts"
)

// catchUpState is a copy of the generated state with its index built,
// made once per process for each era (a benchmark run -count times
// reuses it: the copy and the first build are most of a minute).
type catchUpState struct {
	s     *state.State
	st    *bigstate.State
	cache string
	n     int // messages appended so far
}

var (
	catchUpMu   sync.Mutex
	catchUpSets = map[string]*catchUpState{}
	catchUpDirs []string
)

func catchUpFor(b *testing.B, era string) *catchUpState {
	b.Helper()
	catchUpMu.Lock()
	defer catchUpMu.Unlock()
	if c := catchUpSets[era]; c != nil {
		return c
	}
	spec := bigstate.FromEnv(bigstate.Spec{Sessions: 10000, Bytes: 64 << 20, Seed: 1})
	dir := os.Getenv("SESSIONS_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "sessions-bench-index")
	}
	gen := bigstate.Generate(b, filepath.Join(dir, fmt.Sprintf("state-%d-%d", spec.Sessions, spec.Bytes)), spec)
	tmp, err := os.MkdirTemp("", "sessions-catchup-")
	if err != nil {
		b.Fatal(err)
	}
	catchUpDirs = append(catchUpDirs, tmp)
	sd, cache := filepath.Join(tmp, "state"), filepath.Join(tmp, "cache")
	if err := testutil.CopyTree(gen.Dir, sd); err != nil {
		b.Fatal(err)
	}
	s, err := state.Open(state.Options{StateDir: sd, Env: config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"}, Warn: func(string) {}})
	if err != nil {
		b.Fatal(err)
	}
	rel := *gen
	rel.Dir, rel.DB = sd, filepath.Join(sd, strings.TrimPrefix(gen.DB, gen.Dir))
	rel.Files = nil
	for _, f := range gen.Files {
		rel.Files = append(rel.Files, filepath.Join(sd, strings.TrimPrefix(f, gen.Dir)))
	}
	buildIndex(b, s, cache)
	benchSearch(b, s, bigstate.Rare, cache)
	c := &catchUpState{s: s, st: &rel, cache: cache}
	catchUpSets[era] = c
	return c
}

// TestMain removes what the catch-up benchmarks made once per process.
func TestMain(m *testing.M) {
	code := m.Run()
	catchUpMu.Lock()
	for _, c := range catchUpSets {
		c.s.Close()
	}
	CloseIndexes()
	for _, d := range catchUpDirs {
		os.RemoveAll(d)
	}
	catchUpMu.Unlock()
	os.Exit(code)
}

// BenchmarkSearchCatchUpHeaders is BenchmarkSearchCatchUp (one message
// appended, then the next search from the index: the listing of the
// transcripts, the catch-up, the rare query, whose hits include orphans,
// so their keys are looked for) with the transcripts' headers read every
// time (uncached: as before the cache) and through the process's cache
// (cached: a long-lived process, the MCP server or the UI), interleaved in
// one loop so that both see the same machine: uncached-ms and cached-ms
// are each one's wall time per search, and the cpu-ms its CPU time.
func BenchmarkSearchCatchUpHeaders(b *testing.B) {
	for _, era := range []string{"jsonl", "sqlite"} {
		b.Run(era, func(b *testing.B) {
			c := catchUpFor(b, era)
			was := transcripts.CacheHeaders(true)
			defer transcripts.CacheHeaders(was)
			benchSearch(b, c.s, bigstate.Rare, c.cache) // the cache is warm
			var wall, cpu [2]time.Duration
			for b.Loop() {
				for i, on := range []bool{false, true} {
					transcripts.CacheHeaders(on)
					c.n++
					appendBench(b, c.st, era, c.n)
					t0, c0 := time.Now(), rusage.CPU()
					if a := benchSearch(b, c.s, bigstate.Rare, c.cache); a.Total < c.n {
						b.Fatalf("%d hits: the appended messages are not all found", a.Total)
					}
					wall[i] += time.Since(t0)
					cpu[i] += rusage.CPU() - c0
				}
			}
			per := func(d time.Duration) float64 { return float64(d) / float64(b.N) / 1e6 }
			b.ReportMetric(per(wall[0]), "uncached-ms")
			b.ReportMetric(per(wall[1]), "cached-ms")
			b.ReportMetric(per(cpu[0]), "uncached-cpu-ms")
			b.ReportMetric(per(cpu[1]), "cached-cpu-ms")
		})
	}
}

// BenchmarkOrphanListing is the listing a search of everything makes
// (searchSources) and the keys of every agent's orphans looked for after
// it (orphanKeys, when orphans have hits), on the generated state (10,000
// sessions, 5,000 of them orphan JSONL files), with the headers read
// every time (uncached) and through the process's cache (cached),
// interleaved in one loop.
func BenchmarkOrphanListing(b *testing.B) {
	s, _ := benchState(b, false)
	was := transcripts.CacheHeaders(true)
	defer transcripts.CacheHeaders(was)
	q := &SearchQuery{AllAgents: true, IncludeArchived: true}
	list := func() int {
		srcs, lazy, err := searchSources(s, q, nil)
		if err != nil {
			b.Fatal(err)
		}
		keyed := 0
		for _, l := range lazy {
			l.a.Attribute(s, l.orphans)
			for _, o := range l.orphans {
				if o.Key != "" {
					keyed++
				}
			}
		}
		return len(srcs)*100000 + keyed
	}
	want := list() // the cache is warm
	var wall, cpu [2]time.Duration
	for b.Loop() {
		for i, on := range []bool{false, true} {
			transcripts.CacheHeaders(on)
			t0, c0 := time.Now(), rusage.CPU()
			if got := list(); got != want {
				b.Fatalf("listing %d, first %d", got, want)
			}
			wall[i] += time.Since(t0)
			cpu[i] += rusage.CPU() - c0
		}
	}
	per := func(d time.Duration) float64 { return float64(d) / float64(b.N) / 1e6 }
	b.ReportMetric(per(wall[0]), "uncached-ms")
	b.ReportMetric(per(wall[1]), "cached-ms")
	b.ReportMetric(per(cpu[0]), "uncached-cpu-ms")
	b.ReportMetric(per(cpu[1]), "cached-cpu-ms")
}
