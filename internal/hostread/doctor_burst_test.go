package hostread

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
)

// TestStoreBytes: a doctor's heap burst is sized by the state dir's
// stores, each agent's sessions.json or 2026.8+ database.
func TestStoreBytes(t *testing.T) {
	for _, c := range []struct {
		fixture string
		files   []string
	}{
		{"state-2026.1.30", []string{"agents/main/sessions/sessions.json", "agents/ops/sessions/sessions.json"}},
		{"state-2026.9.6", []string{"agents/main/agent/openclaw-agent.sqlite", "agents/ops/agent/openclaw-agent.sqlite"}},
	} {
		dir := filepath.Join(t.TempDir(), "s")
		if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", c.fixture), dir); err != nil {
			t.Fatal(err)
		}
		s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"}, Warn: func(string) {}})
		if err != nil {
			t.Fatal(err)
		}
		want := int64(0)
		for _, f := range c.files {
			fi, err := os.Stat(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			want += fi.Size()
		}
		if got := storeBytes(s); got != want || want == 0 {
			t.Errorf("%s: %d bytes; want %d", c.fixture, got, want)
		}
		s.Close()
	}
}
