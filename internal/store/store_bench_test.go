package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/testutil/storegen"
)

// BenchmarkLoadStore10k: store.Load on a 10,000-entry store of real entries
// (about 54 MB, ~5.4 KB per entry) — the hot path of `sessions list`.
func BenchmarkLoadStore10k(b *testing.B) {
	p := filepath.Join(b.TempDir(), "sessions.json")
	storegen.WriteStore(b, 10_000, p)
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := store.Load(p)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Entries) != 10_000 {
			b.Fatalf("loaded %d entries, want 10000", len(s.Entries))
		}
	}
}
