package searchindex

import (
	"github.com/openclaw/sessions/internal/testutil/rusage"
	"testing"

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
