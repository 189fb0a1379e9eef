package state_test

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/storecache"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/transcript"
)

// TestListingIsEntries: an agent's listing — read from the store cache's
// disk tier, each entry decoded only when asked for — is its entries as
// Entries gives them, in both eras; a SQLite store served from the cache
// file is opened only when asked for (SQLiteDB), and then works.
func TestListingIsEntries(t *testing.T) {
	defer storecache.SetDisk(storecache.SetDisk(storecache.NewDisk(filepath.Join(t.TempDir(), "cache"), 1)))
	env := config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"}
	names := []string{"state-2026.1.30", "state-2026.9.6", "state-2026.9.8"}
	dirs := map[string]string{}
	for _, name := range names {
		dirs[name] = t.TempDir()
		if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", name), dirs[name]); err != nil {
			t.Fatal(err)
		}
	}
	// the stores quiet for longer than the rule on recent writes, so that
	// the first read is kept in the cache file and the second served from it
	time.Sleep(storecache.RacyWindow + 200*time.Millisecond)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			open := func() *state.State {
				s, err := state.Open(state.Options{StateDir: dirs[name], Env: env})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(s.Close)
				return s
			}
			for _, agent := range open().AgentIDs() {
				if _, err := open().Listing(agent); err != nil { // read, and kept in the cache file
					t.Fatal(err)
				}
				s := open()
				l, err := s.Listing(agent)
				if err != nil {
					t.Fatal(err)
				}
				_, entries, err := open().Entries(agent)
				if err != nil {
					t.Fatal(err)
				}
				if l.Len() != len(entries) {
					t.Fatalf("%s: %d entries listed, want %d", agent, l.Len(), len(entries))
				}
				if l.Len() > 0 && len(l.St.Entries) != 0 {
					t.Fatalf("%s: the listing was not served lazily from the cache file", agent)
				}
				for i, e := range entries {
					if l.Key(i) != e.Key || l.SpawnedBy(i) != e.SpawnedBy || l.Updated(i) != e.Updated() {
						t.Fatalf("%s: entry %d: %q %q %d, want %q %q %d", agent, i, l.Key(i), l.SpawnedBy(i), l.Updated(i), e.Key, e.SpawnedBy, e.Updated())
					}
					if got := l.Entry(i); got.Key != e.Key || !reflect.DeepEqual(got.Meta, e.Meta) {
						t.Fatalf("%s: entry %d whole: %+v, want %+v", agent, i, got.Meta, e.Meta)
					}
				}
				if state.IsSQLite(l.St) {
					db := s.SQLiteDB(agent)
					if db == nil {
						t.Fatalf("%s: SQLiteDB after a listing from the cache: nil", agent)
					}
					if l.Len() > 0 {
						if _, err := s.SQLiteMessages(agent, l.Entry(0), transcript.Options{Limit: 3}); err != nil {
							t.Fatalf("%s: messages: %v", agent, err)
						}
					}
				}
			}
		})
	}
}
