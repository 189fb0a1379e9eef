package state_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/testutil"
)

// TestEntryRaw: the state's stores keep keys and fields only (a SQLite
// store keeps no Raw at all, a sessions.json's may or may not);
// EntryRaw gives every entry's JSON exactly as the full read keeps it, and
// nothing for a session that is not there.
func TestEntryRaw(t *testing.T) {
	for _, name := range []string{"state-2026.1.30", "state-2026.9.6"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", name), dir); err != nil {
				t.Fatal(err)
			}
			env := config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"}
			s, err := state.Open(state.Options{StateDir: dir, Env: env})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			st, entries, err := s.Entries("main")
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) == 0 {
				t.Fatal("no entries")
			}
			full := fullStore(t, s, st)
			for _, e := range entries {
				if s.SQLiteDB("main") != nil && len(e.Raw) != 0 {
					t.Fatalf("%s: the state's store kept Raw (%d bytes)", e.Key, len(e.Raw))
				}
				want, ok := full.Lookup(e.Key)
				if !ok {
					t.Fatalf("%s: not in the full read", e.Key)
				}
				raw, ok, err := s.EntryRaw("main", e)
				if err != nil || !ok || !bytes.Equal(raw, want.Raw) || len(raw) == 0 {
					t.Fatalf("EntryRaw(%s) = %d bytes, %v, %v; want %d bytes", e.Key, len(raw), ok, err, len(want.Raw))
				}
			}
			gone := &store.Entry{Key: "agent:main:no-such-session"}
			if raw, ok, err := s.EntryRaw("main", gone); err != nil || ok || raw != nil {
				t.Fatalf("EntryRaw of a missing session = %q, %v, %v", raw, ok, err)
			}
		})
	}
}

func fullStore(t *testing.T, s *state.State, st *store.Store) *store.Store {
	t.Helper()
	if db := s.SQLiteDB("main"); db != nil {
		full, err := db.Store()
		if err != nil {
			t.Fatal(err)
		}
		return full
	}
	full, err := store.Load(st.Path)
	if err != nil {
		t.Fatal(err)
	}
	return full
}
