package hostread

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/config"
	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/bigstate"
	"github.com/openclaw/sessions/internal/testutil/rusage"
)

// benchState is the generated state of the index's benchmarks
// (internal/searchindex, bench_test.go: the same spec and directory, so
// it is generated once), copied when copy is set (a benchmark that writes
// to it), opened for the operator.
func benchState(b *testing.B, copy bool) (*state.State, *bigstate.State) {
	b.Helper()
	spec := bigstate.FromEnv(bigstate.Spec{Sessions: 10000, Bytes: 64 << 20, Seed: 1})
	dir := os.Getenv("SESSIONS_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "sessions-bench-index")
	}
	st := bigstate.Generate(b, filepath.Join(dir, fmt.Sprintf("state-%d-%d", spec.Sessions, spec.Bytes)), spec)
	sd := st.Dir
	if copy {
		sd = b.TempDir()
		if err := testutil.CopyTree(st.Dir, sd); err != nil {
			b.Fatal(err)
		}
	}
	s, err := state.Open(state.Options{StateDir: sd, Env: config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"}, Warn: func(string) {}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(); CloseIndexes() })
	rel := *st
	rel.Dir, rel.DB = sd, filepath.Join(sd, strings.TrimPrefix(st.DB, st.Dir))
	rel.Files = nil
	for _, f := range st.Files {
		rel.Files = append(rel.Files, filepath.Join(sd, strings.TrimPrefix(f, st.Dir)))
	}
	return s, &rel
}

// appendBench appends message n holding the rare word, as OpenClaw does:
// a line to the first JSONL transcript, or an event to the store's first
// generated session.
func appendBench(b *testing.B, st *bigstate.State, era string, n int) {
	b.Helper()
	ev := fmt.Sprintf(`{"type":"message","id":"cu%d","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"one more %s"}}`, n, bigstate.Rare)
	if era == "jsonl" {
		f, err := os.OpenFile(st.Files[0], os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(ev + "\n"); err != nil {
			b.Fatal(err)
		}
		return
	}
	db, err := sql.Open("sqlite", "file:"+st.DB)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	sid := st.Sessions[0]
	if _, err := db.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at)
		SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, 1795255200000 FROM transcript_events WHERE session_id = ?`, sid, ev, sid); err != nil {
		b.Fatal(err)
	}
}

// buildIndex builds the index a search of s in cache asks (with no
// deadline: a search gives up a first build after indexWait and scans).
func buildIndex(b *testing.B, s *state.State, cache string) {
	b.Helper()
	ix, err := openIndex(s, &SearchIndex{CacheDir: cache}, nil)
	if err != nil {
		b.Fatal(err)
	}
	all, err := indexSources(s, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ix.Update(context.Background(), all); err != nil {
		b.Fatal(err)
	}
}

// benchQuery is the query of `search --all-agents --include-archived
// --limit 20` of pattern: from the index in cache (nil: the scan).
func benchQuery(b *testing.B, pattern, cache string) *SearchQuery {
	m, err := srch.Compile(srch.Query{Pattern: pattern})
	if err != nil {
		b.Fatal(err)
	}
	q := &SearchQuery{AllAgents: true, IncludeArchived: true, Options: &srch.Options{Matcher: m}, Limit: 20}
	if cache != "" {
		// As a search runs by default: the backlog weighed first (its
		// stamps the catch-up's), a background build never needed here.
		q.Index = &SearchIndex{Pattern: srch.Query{Pattern: pattern}, CacheDir: cache, Debug: func(d string) {
			if strings.Contains(d, "scanning") || strings.Contains(d, "reading") {
				b.Fatal(d) // not the index's answer
			}
		}, Background: func() error {
			b.Fatal("a background build started: the index is far behind")
			return nil
		}}
	}
	return q
}

// benchSearch is `search --all-agents --include-archived --limit 20` of
// pattern: from the index in cache (nil: the scan).
func benchSearch(b *testing.B, s *state.State, pattern, cache string) *SearchAnswer {
	a, err := Search(s, benchQuery(b, pattern, cache))
	if err != nil {
		b.Fatal(err)
	}
	return a
}

// BenchmarkSearchIndexed: a search as a warm process (the MCP server, the
// UI) answers it from the index — the listing of the transcripts, the
// catch-up that finds nothing changed, the candidates and their
// verification, the page of hits — beside the scan, on the generated state
// (10,000 sessions, both eras). The first search, which builds the index,
// is not timed.
func BenchmarkSearchIndexed(b *testing.B) {
	s, _ := benchState(b, false)
	cache := b.TempDir()
	buildIndex(b, s, cache)
	for _, q := range []struct{ name, pattern string }{
		{"rare", bigstate.Rare}, {"common", bigstate.Common}, {"cjk", "再起動"},
	} {
		want := benchSearch(b, s, q.pattern, "").Total
		if got := benchSearch(b, s, q.pattern, cache).Total; got != want {
			b.Fatalf("%s: %d hits from the index, the scan %d", q.name, got, want)
		}
		b.Run(q.name+"/index", func(b *testing.B) {
			start := rusage.CPU()
			for b.Loop() {
				if got := benchSearch(b, s, q.pattern, cache).Total; got != want {
					b.Fatalf("%d hits, the scan %d", got, want)
				}
			}
			b.ReportMetric(float64(rusage.CPU()-start)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(want), "hits")
		})
		if q.name == "common" {
			b.Run(q.name+"/scan", func(b *testing.B) {
				start := rusage.CPU()
				for b.Loop() {
					benchSearch(b, s, q.pattern, "")
				}
				b.ReportMetric(float64(rusage.CPU()-start)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}

// BenchmarkSearchCatchUp: one message appended to a JSONL transcript of
// the generated state (a copy), then the next search from the index: its
// listing of the transcripts, the catch-up that indexes the message, and
// the rare query.
func BenchmarkSearchCatchUp(b *testing.B) {
	for _, era := range []string{"jsonl", "sqlite"} {
		b.Run(era, func(b *testing.B) {
			s, st := benchState(b, true)
			cache := b.TempDir()
			buildIndex(b, s, cache)
			benchSearch(b, s, bigstate.Rare, cache)
			n := 0
			start := rusage.CPU()
			for b.Loop() {
				n++
				appendBench(b, st, era, n)
				if a := benchSearch(b, s, bigstate.Rare, cache); a.Total < n {
					b.Fatalf("%d hits: the appended messages are not all found", a.Total)
				}
			}
			b.ReportMetric(float64(rusage.CPU()-start)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkSearchIndexedQuery: the query's own part of a search a warm
// process (the MCP server, the UI) answers from the index, the listing of
// the transcripts and the catch-up left out (BenchmarkSearchIndexed has
// them): the candidates, their match on the kept text, the exact count and
// the page of 20 hits with their snippets, under the memory limit a search
// runs with. The first query, which builds the index, is not timed.
func BenchmarkSearchIndexedQuery(b *testing.B) {
	s, _ := benchState(b, false)
	cache := b.TempDir()
	buildIndex(b, s, cache)
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	for _, q := range []struct{ name, pattern string }{
		{"rare", bigstate.Rare}, {"common", bigstate.Common}, {"cjk", "再起動"},
	} {
		want := benchSearch(b, s, q.pattern, "")
		sq := benchQuery(b, q.pattern, cache)
		srcs, _, err := searchSources(s, sq, nil)
		if err != nil {
			b.Fatal(err)
		}
		ix, err := openIndex(s, sq.Index, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Update(context.Background(), srcs); err != nil {
			b.Fatal(err)
		}
		b.Run(q.name, func(b *testing.B) {
			start := rusage.CPU()
			var took []time.Duration
			for b.Loop() {
				t0 := time.Now()
				limitMemory() // as Search does
				r := answerIndexed(ix, sq, srcs, srcs, nil)
				took = append(took, time.Since(t0))
				if r == nil || r.Total != want.Total || len(r.Hits) != len(want.Hits) {
					b.Fatalf("not the scan's answer: %+v", r)
				}
			}
			b.ReportMetric(float64(rusage.CPU()-start)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(want.Total), "hits")
			// the goals are of the median and the 99th percentile
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(took[min(len(took)-1, len(took)*99/100)])/1e6, "p99-ms")
		})
	}
}
