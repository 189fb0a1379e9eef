package transcript

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// benchMB is the size of the large benchmark transcript:
// SESSIONS_BENCH_MB (default 50), e.g. SESSIONS_BENCH_MB=200 go test -bench .
func benchMB() int {
	if v, err := strconv.Atoi(os.Getenv("SESSIONS_BENCH_MB")); err == nil && v > 0 {
		return v
	}
	return 50
}

// BenchmarkTranscript generates a 200 KB and a SESSIONS_BENCH_MB transcript
// once and times: the last 50 messages without tool results (what `sessions
// history --limit 50` does), the same with tool results, and a full forward
// read (Limit 0).
func BenchmarkTranscript(b *testing.B) {
	dir := b.TempDir()
	sizes := []struct {
		name string
		path string
	}{
		{"200KB", bigTranscript(b, dir, 200<<10)},
		{fmt.Sprintf("%dMB", benchMB()), bigTranscript(b, dir, int64(benchMB())<<20)},
	}
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"tail50", Options{Limit: 50}},
		{"tail50-tools", Options{Limit: 50, IncludeTools: true}},
		{"all", Options{}},
	} {
		for _, s := range sizes {
			b.Run(c.name+"/"+s.name, func(b *testing.B) {
				st, err := os.Stat(s.path)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					res, err := ReadMessages(s.path, c.opts)
					if err != nil || (c.opts.Limit > 0 && len(res.Messages) != c.opts.Limit) {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(st.Size())/(1<<20), "fileMB")
			})
		}
	}
}

// BenchmarkLastEntryID: the cheap backward probe an append starts with.
func BenchmarkLastEntryID(b *testing.B) {
	p := bigTranscript(b, b.TempDir(), int64(benchMB())<<20)
	b.ReportAllocs()
	for b.Loop() {
		if id, has, err := LastEntryID(p); err != nil || id == "" || !has {
			b.Fatal(id, has, err)
		}
	}
}

// BenchmarkPage times a history page of 200 on a SESSIONS_BENCH_MB
// transcript: the newest page, and the oldest full page (--before a cursor
// near the start of the file), beside a full forward read: a page before a
// cursor reads only back from the cursor, wherever it lies.
func BenchmarkPage(b *testing.B) {
	p := bigTranscript(b, b.TempDir(), int64(benchMB())<<20)
	all, err := ReadMessages(p, Options{})
	if err != nil || len(all.Messages) < 401 {
		b.Fatal(err)
	}
	// The cursor of the page that starts with the 201st message.
	deep, err := ReadMessages(p, Options{Limit: len(all.Messages) - 200, More: true})
	if err != nil || !deep.More {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"newest200", Options{Limit: 200, More: true}},
		{"oldest200-before", Options{Limit: 200, More: true, Before: deep.Positions[0], BeforeCheck: deep.Checks[0]}},
		{"all-forward", Options{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ReadMessages(p, c.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
