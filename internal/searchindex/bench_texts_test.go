package searchindex

import (
	"runtime/debug"
	"testing"

	"github.com/openclaw/sessions/internal/testutil/rusage"

	"github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/testutil/bigstate"
)

// BenchmarkQueryKept: the queries of BenchmarkQuery answered from the
// index alone — candidates, their text as the index keeps it (Texts), the
// real match on that (search.Options.Accept) — beside the same candidates
// verified on their lines read again (Read), in one process.
func BenchmarkQueryKept(b *testing.B) {
	_, srcs := benchState(b)
	e := &trigramEngine{}
	e.build(b, srcs)
	defer e.close()
	for _, q := range []struct{ name, pattern string }{
		{"rare", bigstate.Rare}, {"common", bigstate.Common}, {"cjk", "再起動"}, {"cyrillic", "перезапуск"},
	} {
		sq := search.Query{Pattern: q.pattern}
		want := scanCount(srcs, sq)
		m, err := search.Compile(sq)
		if err != nil {
			b.Fatal(err)
		}
		o := &search.Options{Matcher: m}
		b.Run(q.name+"/lines", func(b *testing.B) {
			start := rusage.CPU()
			for b.Loop() {
				if got := verify(b, srcs, sq, e.candidates(b, sq)); got != want {
					b.Fatalf("%d hits, the scan %d", got, want)
				}
			}
			reportCPU(b, start)
			b.ReportMetric(float64(want), "hits")
		})
		b.Run(q.name+"/kept", func(b *testing.B) {
			start := rusage.CPU()
			for b.Loop() {
				res, err := e.ix.Candidates(sq, Filter{})
				if err != nil {
					b.Fatal(err)
				}
				if err := e.ix.Texts(res); err != nil {
					b.Fatal(err)
				}
				got := 0
				for _, cs := range res.Sources {
					for i := range cs {
						if _, ok := o.Accept(cs[i].Message(false), cs[i].Pos); ok {
							got++
						}
					}
				}
				if got != want {
					b.Fatalf("%d hits, the scan %d", got, want)
				}
			}
			reportCPU(b, start)
			b.ReportMetric(float64(want), "hits")
		})
	}
}

// BenchmarkQueryCount: a search's page of 20 hits and its exact count from
// the index, both ways side by side in one process, under the memory limit
// a search runs with (hostread.Search: 40 MiB): "texts", every
// candidate's kept text copied out (Texts), the page's hits made
// (Accept) and the rest counted (Accepts), as search did; "match", every
// candidate matched in place (Match, a literal of three folded bytes
// from its postings), then the text of the page's 20 only (TextsOf) and
// their hits. "candidates" is the selection alone, what both begin with.
func BenchmarkQueryCount(b *testing.B) {
	_, srcs := benchState(b)
	e := &trigramEngine{}
	e.build(b, srcs)
	defer e.close()
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(40 << 20))
	const page = 20
	for _, q := range []struct{ name, pattern string }{
		{"rare", bigstate.Rare}, {"common", bigstate.Common}, {"cjk", "再起動"}, {"cjk1", "再"},
	} {
		sq := search.Query{Pattern: q.pattern}
		want := scanCount(srcs, sq)
		m, err := search.Compile(sq)
		if err != nil {
			b.Fatal(err)
		}
		o := &search.Options{Matcher: m}
		b.Run(q.name+"/candidates", func(b *testing.B) {
			start := rusage.CPU()
			for b.Loop() {
				if _, err := e.ix.Candidates(sq, Filter{}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
		b.Run(q.name+"/texts", func(b *testing.B) {
			start := rusage.CPU()
			for b.Loop() {
				res, err := e.ix.Candidates(sq, Filter{})
				if err != nil {
					b.Fatal(err)
				}
				if err := e.ix.Texts(res); err != nil {
					b.Fatal(err)
				}
				got, shown := 0, 0
				for _, cs := range res.Sources {
					for i := range cs {
						m := cs[i].Message(false)
						if shown < page {
							if _, ok := o.Accept(m, cs[i].Pos); ok {
								got++
								shown++
							}
						} else if o.Accepts(m) {
							got++
						}
					}
				}
				if got != want {
					b.Fatalf("%d hits, the scan %d", got, want)
				}
			}
			reportCPU(b, start)
			b.ReportMetric(float64(want), "hits")
		})
		b.Run(q.name+"/match", func(b *testing.B) {
			var st MatchStats
			start := rusage.CPU()
			for b.Loop() {
				res, err := e.ix.Candidates(sq, Filter{})
				if err != nil {
					b.Fatal(err)
				}
				if st, err = e.ix.Match(res, false, o.Accepts); err != nil {
					b.Fatal(err)
				}
				var shown []*Candidate
				for _, cs := range res.Sources {
					for i := range cs {
						if cs[i].Matched && len(shown) < page {
							shown = append(shown, &cs[i])
						}
					}
				}
				if err := e.ix.TextsOf(res, shown); err != nil {
					b.Fatal(err)
				}
				for _, c := range shown {
					if _, ok := o.Accept(c.Message(false), c.Pos); !ok {
						b.Fatal("a matched candidate makes no hit")
					}
				}
				if st.Matched != want {
					b.Fatalf("%d hits, the scan %d", st.Matched, want)
				}
			}
			reportCPU(b, start)
			b.ReportMetric(float64(want), "hits")
			b.ReportMetric(float64(st.Proved), "proved")
			b.ReportMetric(float64(st.Blocks), "blocks")
		})
	}
}
