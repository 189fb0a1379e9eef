package store_test

import (
	"fmt"
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

// BenchmarkTranscripts10k: resolving the transcripts of 10,000 sessions
// whose files are all in the store dir (what `sessions list --limit 10000`
// does for its rows), with a fresh resolver each time (one process).
func BenchmarkTranscripts10k(b *testing.B) {
	st, entries, dir, state := transcriptsState(b, 10_000, "cd613e30-d8f1-4adf-91b7-")
	b.ReportAllocs()
	for b.Loop() {
		r := store.NewResolver(state)
		for i := range entries {
			if tp, err := r.Transcript(st, &entries[i], dir); err != nil || !tp.Exists {
				b.Fatalf("%+v %v", tp, err)
			}
		}
	}
}

// BenchmarkTranscripts200: an agent's 200 transcripts resolved as a
// search resolves them (a fresh resolver each time: one process), looked
// up one lstat each, or from one listing of the directory when the
// caller says how many it will look up (Resolver.ExpectIn).
func BenchmarkTranscripts200(b *testing.B) {
	st, entries, dir, state := transcriptsState(b, 200, "5ea4c400-0000-4000-8000-")
	for _, expect := range []bool{false, true} {
		name := "lstat"
		if expect {
			name = "ExpectIn"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := store.NewResolver(state)
				if expect {
					r.ExpectIn(dir, len(entries), len(entries))
				}
				for i := range entries {
					if tp, err := r.Transcript(st, &entries[i], dir); err != nil || !tp.Exists {
						b.Fatalf("%+v %v", tp, err)
					}
				}
			}
		})
	}
}

// transcriptsState is a state dir whose main agent's store holds n
// sessions (ids prefix and a 12-digit number), each with an empty
// transcript in the store's dir: the store, its entries, the dir and the
// state dir.
func transcriptsState(b *testing.B, n int, prefix string) (*store.Store, []store.Entry, string, string) {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	entries := make([]store.Entry, n)
	for i := range entries {
		id := fmt.Sprintf("%s%012d", prefix, i)
		entries[i].Key = "agent:main:s" + id
		entries[i].SessionID = id
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	st := store.Restore(filepath.Join(dir, "sessions.json"), entries, 0, false, false)
	return st, entries, dir, filepath.Dir(filepath.Dir(filepath.Dir(dir)))
}
