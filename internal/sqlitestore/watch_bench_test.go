package sqlitestore

import (
	"github.com/openclaw/sessions/internal/testutil/rusage"
	"path/filepath"
	"testing"
)

// BenchmarkStamps10k: what a feed reads on every commit to a 10,000-session
// store to find the sessions that changed (see BenchmarkStoreMeta10k for
// the whole read). Needs SESSIONS_SQLITE_BENCH_DIR, as BenchmarkStore10k.
func BenchmarkStamps10k(b *testing.B) {
	p := Path(filepath.Join(benchState(b), "state"), "main")
	b.ResetTimer()
	cpu0 := int64(rusage.CPU())
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
	b.ReportMetric(float64(int64(rusage.CPU())-cpu0)/float64(b.N), "cpu-ns/op")
}
