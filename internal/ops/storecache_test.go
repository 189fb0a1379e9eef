package ops

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/storecache"
)

// listed is the row of key in a fresh Ops's listing (all agents, no limit)
// on cfg, whose Cache is shared with the other calls.
func listed(t *testing.T, cfg Config, key string) map[string]any {
	t.Helper()
	res, err := New(cfg).List(context.Background(), ListQuery{Limit: -1, AllAgents: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Sessions {
		if r.Key == key {
			return map[string]any{"label": r.Label, "model": r.Model}
		}
	}
	t.Fatalf("no row %s", key)
	return nil
}

// quiet waits until files written now are older than the cache's racy
// window: from then on the cache trusts what it reads of them.
func quiet() { time.Sleep(storecache.RacyWindow + 100*time.Millisecond) }

// Ops sharing a store cache (a server's calls) answer from the store as it
// is at each call: a write by OpenClaw between two calls shows in the next
// one, in both eras, while an unchanged store is not read again.
func TestStoreCacheSeesOpenClawWrites(t *testing.T) {
	// both copies made first: one wait makes both quiet
	jsonCache, sqliteCache := NewStoreCache(), NewStoreCache()
	jo, jsonDir := fixtureOps(t, "state-2026.1.30", nil, Config{Cache: jsonCache})
	so, sqliteDir := fixtureOps(t, "state-2026.9.6", nil, Config{Cache: sqliteCache})
	quiet()
	t.Run("json", func(t *testing.T) {
		cache, cfg, dir := jsonCache, jo.Config(), jsonDir
		p := filepath.Join(dir, "agents", "main", "sessions", "sessions.json")
		key := "agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2"
		if got := listed(t, cfg, key)["label"]; got != "build-stats" {
			t.Fatalf("label %v", got)
		}
		listed(t, cfg, key)
		if s := cache.Stats(); s.Hits == 0 {
			t.Fatalf("an unchanged store was read again: %+v", s)
		}

		// OpenClaw rewrites the file in place, same size; its mtime is put
		// back as it was (only the ctime and the content differ).
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(p)
		data = bytes.Replace(data, []byte(`"label": "build-stats"`), []byte(`"label": "build-STATS"`), 1)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		if got := listed(t, cfg, key)["label"]; got != "build-STATS" {
			t.Fatalf("after a same-size rewrite: label %v", got)
		}
		// and at once again (the write is still racy: read again, and again seen)
		data = bytes.Replace(data, []byte(`"label": "build-STATS"`), []byte(`"label": "BUILD-stats"`), 1)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := listed(t, cfg, key)["label"]; got != "BUILD-stats" {
			t.Fatalf("after a second rewrite: label %v", got)
		}
	})
	t.Run("sqlite", func(t *testing.T) {
		cache, cfg, dir := sqliteCache, so.Config(), sqliteDir
		p := filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite")
		key := "agent:main:cron:peer-job-1"
		if got := listed(t, cfg, key)["model"]; got != "mock-1" {
			t.Fatalf("model %v", got)
		}
		listed(t, cfg, key)
		if s := cache.Stats(); s.Hits == 0 {
			t.Fatalf("an unchanged store was read again: %+v", s)
		}
		setModel := func(db *sql.DB, model string) {
			t.Helper()
			res, err := db.Exec(`UPDATE session_nodes SET entry_json = json_set(entry_json, '$.model', ?) WHERE session_key = ?`, model, key)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				t.Fatalf("%d rows updated", n)
			}
		}
		// A writer that stays open: its commit is frames in the -wal, the
		// database file untouched.
		w, err := sql.Open("sqlite", "file:"+p)
		if err != nil {
			t.Fatal(err)
		}
		w.SetMaxOpenConns(1)
		before, _ := os.Stat(p)
		setModel(w, "mock-7")
		if got := listed(t, cfg, key)["model"]; got != "mock-7" {
			t.Fatalf("after a commit in the -wal: model %v", got)
		}
		if after, _ := os.Stat(p); !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
			t.Log("the database file changed too (checkpointed)")
		}
		quiet()
		listed(t, cfg, key)
		setModel(w, "mock-8") // same size again
		if got := listed(t, cfg, key)["model"]; got != "mock-8" {
			t.Fatalf("after a second commit: model %v", got)
		}
		// The writer goes: its checkpoint moves the frames into the file
		// and removes the -wal.
		setModel(w, "mock-9")
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := listed(t, cfg, key)["model"]; got != "mock-9" {
			t.Fatalf("after the checkpoint: model %v", got)
		}
	})
}
