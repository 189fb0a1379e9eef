package state_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/storegen"
	"github.com/tidwall/gjson"
)

// BenchmarkResolve compares the ways of naming a session on a 10,000-entry
// store, each a whole invocation's work (open the state, load the store,
// find the entry): by key (an index lookup), by sessionId and by an 8-digit
// sessionId prefix (both a scan of every agent's entries after the key
// misses). Run: go test -bench Resolve -run '^$' ./internal/state
func BenchmarkResolve(b *testing.B) {
	const n = 10_000
	dir := b.TempDir()
	storePath := filepath.Join(dir, "agents", "main", "sessions", "sessions.json")
	storegen.WriteStore(b, n, storePath)
	cfg, err := os.ReadFile(filepath.Join(testutil.Fixture(b), "openclaw.json"))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), cfg, 0o600); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(storePath)
	if err != nil {
		b.Fatal(err)
	}
	// The entry in the middle of the file.
	var key, sid string
	i := 0
	gjson.ParseBytes(data).ForEach(func(k, v gjson.Result) bool {
		if i == n/2 {
			key, sid = k.String(), v.Get("sessionId").String()
			return false
		}
		i++
		return true
	})
	env := config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"}
	for _, c := range []struct{ name, ref string }{
		{"key", key},
		{"sessionId", sid},
		{"prefix8", sid[:8]},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				s, err := state.Open(state.Options{StateDir: dir, Env: env})
				if err != nil {
					b.Fatal(err)
				}
				t, err := s.Resolve(c.ref, policy.OpHistory)
				if err != nil {
					b.Fatal(err)
				}
				if !strings.EqualFold(t.Entry.SessionID, sid) {
					b.Fatalf("resolved %s", t.Key)
				}
				s.Close()
			}
		})
	}
}
