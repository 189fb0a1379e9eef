package ops_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/testutil/storegen"
)

// BenchmarkBoundaryList10k is what the agent boundary costs: a warm
// listing of the 10k JSON store (every row, and the default page of 50)
// for the operator (no boundary) and masked (--redact: the boundary
// copies the document and masks every string), side by side in one run.
func BenchmarkBoundaryList10k(b *testing.B) {
	state := storegen.State(b, 10_000)
	home := b.TempDir()
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CACHE_HOME": filepath.Join(home, "cache")}
	getenv := func(k string) string { return vars[k] }
	// a store written less than 2 s before its read is read again (the
	// cache's racy rule): warm means read after that
	time.Sleep(2100 * time.Millisecond)
	cache := ops.NewStoreCache()
	for _, limit := range []int{50, -1} {
		for _, masked := range []bool{false, true} {
			name := "operator"
			if masked {
				name = "boundary"
			}
			lim := "page"
			if limit < 0 {
				lim = "all"
			}
			b.Run(lim+"/"+name, func(b *testing.B) {
				c := ops.Config{StateDir: state, Env: config.Env{Getenv: getenv, Home: home}, Getenv: getenv, Now: time.Now,
					Redact: masked, Cache: cache}
				for b.Loop() {
					if _, err := ops.New(c).List(context.Background(), ops.ListQuery{Limit: limit, AllAgents: true}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
