package hostread

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

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

// sessions index --update, --rebuild and --remove while another process
// holds the index's lock: each gives up after the lock timeout with exit
// 11 (it used to wait for --update's lock until Ctrl-C), the index as it
// was; a build in the background that holds it is named, with its pid.
func TestIndexLockTimeout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
		t.Fatal(err)
	}
	s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cache := t.TempDir()
	if _, err := Index(context.Background(), s, IndexQuery{CacheDir: cache, Update: true}); err != nil {
		t.Fatal(err)
	}
	raw := filepath.Join(cache, searchindex.StateKey(dir), "raw")
	held := flock.New(filepath.Join(raw, "lock"))
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	// a guard, not a measure: the old code waited until its context ended
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, q := range []IndexQuery{{Update: true}, {Rebuild: true}, {Remove: true}} {
		q.CacheDir, q.LockTimeout = cache, 20*time.Millisecond
		_, err := Index(ctx, s, q)
		if apperr.CodeOf(err) != apperr.CodeLock || !strings.Contains(err.Error(), "being updated by another process") {
			t.Fatalf("%+v under a held lock: %v (exit %d), want exit %d", q, err, apperr.CodeOf(err), apperr.CodeLock)
		}
	}
	held.Unlock()
	a, err := Index(context.Background(), s, IndexQuery{CacheDir: cache})
	if err != nil || len(a.Indexes) != 1 || a.Indexes[0].Changed != 0 || a.Indexes[0].Sources != a.Sources {
		t.Fatalf("the index after the refusals: %+v %v", a, err)
	}

	// held by a build in the background (this process, as one would)
	ix, err := searchindex.Open(cache, searchindex.StateKey(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	all, err := indexSources(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Update(context.Background(), all); err != nil {
		t.Fatal(err)
	}
	var inner error
	asked := false
	bctx := searchindex.WithHolder(searchindex.WithProgress(context.Background(), func(searchindex.Progress) {
		if !asked {
			asked = true
			_, inner = Index(ctx, s, IndexQuery{CacheDir: cache, Update: true, LockTimeout: 20 * time.Millisecond})
		}
	}), "background")
	if _, err := ix.Update(bctx, all); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("(pid %d, a build a search started in the background;", os.Getpid())
	if !asked || apperr.CodeOf(inner) != apperr.CodeLock || !strings.Contains(inner.Error(), want) {
		t.Fatalf("--update during a background build: %v, want exit 11 naming %q", inner, want)
	}
	if h, ok := searchindex.Holder(raw); ok {
		t.Fatalf("the lock let go still names %v", h)
	}
}
