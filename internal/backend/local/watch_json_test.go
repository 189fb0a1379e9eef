package local

// The JSON era's side of the local change feed: the store's layouts.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/watch"
)

// However the store is written — as OpenClaw does (a new file renamed
// over it), rewritten in place, compact, JSON5 — one session's change is
// one updated event; only OpenClaw's layout is read incrementally.
func TestWatchStoreLayouts(t *testing.T) {
	for _, c := range []struct {
		name        string
		write       func(path string, m map[string]any) error
		incremental bool
	}{
		{"renamed over", func(p string, m map[string]any) error { return writeRenamed(p, indent(m)) }, true},
		{"in place", func(p string, m map[string]any) error { return os.WriteFile(p, indent(m), 0o600) }, true},
		{"compact", func(p string, m map[string]any) error { b, _ := json.Marshal(m); return writeRenamed(p, b) }, false},
		{"JSON5", func(p string, m map[string]any) error {
			return writeRenamed(p, []byte("// edited by hand\n"+string(indent(m))))
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
				t.Fatal(err)
			}
			env := config.Env{Home: t.TempDir(), Getenv: func(string) string { return "" }}
			l := &Local{State: func() (*state.State, error) { return state.Open(state.Options{StateDir: dir, Env: env}) }, Warn: func(string) {}}
			w, err := l.startWatch(backend.WatchQuery{}, func([]watch.Event) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			defer w.close()
			js := w.order[0]
			path := js.path
			var m map[string]any
			data, _ := os.ReadFile(path)
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			for i, tokens := range []float64{111, 222} {
				m["agent:main:main"].(map[string]any)["totalTokens"] = tokens
				if err := c.write(path, m); err != nil {
					t.Fatal(err)
				}
				evs, err := w.loadJSON(js, false)
				if err != nil || len(evs) != 1 || evs[0].Kind != watch.Updated || evs[0].ID.Key != "main" ||
					!slices.Equal(evs[0].Fields, []string{"totalTokens"}) || *evs[0].Row.TotalTokens != tokens {
					t.Fatalf("write %d: %+v %v", i, evs, err)
				}
				// The first write reorders the members (sorted keys): a
				// full read where the layout is another; the second is
				// incremental in OpenClaw's layout.
				if i == 1 && (js.index != nil) != c.incremental {
					t.Errorf("incremental: %v, want %v", js.index != nil, c.incremental)
				}
			}
			if len(js.snap) != 8 {
				t.Errorf("%d sessions after the changes, want 8", len(js.snap))
			}
		})
	}
}

func indent(m map[string]any) []byte {
	b, _ := json.MarshalIndent(m, "", "  ")
	return b
}

func writeRenamed(path string, data []byte) error {
	if err := os.WriteFile(path+".tmp", data, 0o600); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}
