package local

// The SQLite era's benchmark of the local change feed (the JSON era's are
// in watch_bench_test.go).

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/rusage"
	"github.com/openclaw/sessions/internal/watch"
)

// BenchmarkWatchOneChangeSQLite10k: one session's entry written as
// OpenClaw writes it (entry_json and updated_at) in a 10,000-session
// OpenClaw 2026.8+ store, to its updated event: the two indexes compared,
// the one entry read. It needs SESSIONS_SQLITE_BENCH_DIR, as
// internal/sqlitestore's BenchmarkStore10k (which builds the store), and
// works on a copy.
func BenchmarkWatchOneChangeSQLite10k(b *testing.B) {
	src := filepath.Join(os.Getenv("SESSIONS_SQLITE_BENCH_DIR"), "state")
	if _, err := os.Stat(filepath.Join(src, "agents", "main", "agent", "openclaw-agent.sqlite")); os.Getenv("SESSIONS_SQLITE_BENCH_DIR") == "" || err != nil {
		b.Skip("SESSIONS_SQLITE_BENCH_DIR has no 10k SQLite store (build it with internal/sqlitestore's BenchmarkStore10k)")
	}
	dir := filepath.Join(b.TempDir(), "state")
	if err := testutil.CopyTree(src, dir); err != nil {
		b.Fatal(err)
	}
	env := config.Env{Home: b.TempDir(), Getenv: func(string) string { return "" }}
	l := &Local{State: func() (*state.State, error) { return state.Open(state.Options{StateDir: dir, Env: env}) }, Warn: func(string) {}}
	w, err := l.startWatch(backend.WatchQuery{}, func([]watch.Event) error { return nil })
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.close)
	if len(w.dbs) != 1 || len(w.dbs[0].snap) < 10_000 {
		b.Fatalf("watching %d SQLite stores", len(w.dbs))
	}
	a := w.dbs[0]
	db, err := sql.Open("sqlite", "file:"+a.path+"?_busy_timeout=5000")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var key string
	if err := db.QueryRow("SELECT session_key FROM session_nodes WHERE session_key LIKE 'agent:main:%' ORDER BY updated_at DESC LIMIT 1").Scan(&key); err != nil {
		b.Fatal(err)
	}
	var cpu int64
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		u := 1900000000000 + int64(i)
		if _, err := db.Exec(`UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', ?, '$.updatedAt', ?), updated_at = ? WHERE session_key = ?`, 1000+i, u, u, key); err != nil {
			b.Fatal(err)
		}
		if _, err := db.Exec(`UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?`, key); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c0 := int64(rusage.CPU())
		evs, err := w.loadSQLite(a, false)
		cpu += int64(rusage.CPU()) - c0
		if err != nil || len(evs) != 1 || evs[0].Kind != watch.Updated {
			b.Fatalf("events %+v, %v", evs, err)
		}
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}
