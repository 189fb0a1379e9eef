package hostread

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/searchindex"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
)

// sessions index on both eras: no index is a status, not an error; an
// update interrupted (Ctrl-C: its context cancelled) says so and keeps
// what it finished, which the status shows and the next update goes on
// from; progress ends at the total it announced; --remove leaves no index.
func TestIndexInterruptedAndResumed(t *testing.T) {
	for _, fixture := range []string{"state-2026.1.30", "state-2026.9.6"} {
		t.Run(fixture, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", fixture), dir); err != nil {
				t.Fatal(err)
			}
			s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"}, Warn: func(string) {}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			cache := t.TempDir()
			a, err := Index(context.Background(), s, IndexQuery{CacheDir: cache})
			if err != nil || len(a.Indexes) != 0 || a.Sources < 4 {
				t.Fatalf("no index yet: %+v %v", a, err)
			}
			total := a.Sources

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err = Index(ctx, s, IndexQuery{CacheDir: cache, Update: true, Progress: func(p searchindex.Progress) {
				if p.SourcesDone == 2 {
					cancel()
				}
			}})
			if apperr.CodeOf(err) != apperr.CodeError || !strings.Contains(err.Error(), "interrupted: the index keeps the 2 transcript(s) it finished") {
				t.Fatalf("interrupted: %v", err)
			}
			a, err = Index(context.Background(), s, IndexQuery{CacheDir: cache})
			if err != nil || len(a.Indexes) != 1 || a.Indexes[0].Sources != 2 || a.Indexes[0].Changed != total-2 {
				t.Fatalf("after the interruption: %+v %v", a.Indexes, err)
			}

			var last searchindex.Progress
			a, err = Index(context.Background(), s, IndexQuery{CacheDir: cache, Update: true, Progress: func(p searchindex.Progress) { last = p }})
			if err != nil {
				t.Fatal(err)
			}
			if st := a.Stats; st.Unchanged != 2 || st.Whole != total-2 {
				t.Fatalf("resumed: %v", st)
			}
			if x := a.Indexes[0]; x.Sources != total || x.Changed != 0 || x.Messages == 0 || x.Bytes != last.Bytes || last.BytesDone != last.Bytes {
				t.Fatalf("resumed: %+v, progress %+v", x, last)
			}

			a, err = Index(context.Background(), s, IndexQuery{CacheDir: cache, Remove: true})
			if err != nil || len(a.Removed) != 1 || len(a.Indexes) != 0 {
				t.Fatalf("remove: %+v %v", a, err)
			}
		})
	}
}
