package sqlitestore

import (
	"path/filepath"
	"testing"
)

// BenchmarkStamps10k: what a feed reads on every commit to a 10,000-session
// store to find the sessions that changed (see BenchmarkStoreMeta10k for
// the whole read). Needs SESSIONS_SQLITE_BENCH_DIR, as BenchmarkStore10k.
func BenchmarkStamps10k(b *testing.B) {
	p := Path(filepath.Join(benchState(b), "state"), "main")
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		db, err := Open(p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		st, _, err := db.Stamps()
		if err != nil || len(st) != benchSessions {
			b.Fatalf("%d stamps, %v", len(st), err)
		}
		db.Close()
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}
