package list_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil/storegen"
)

// runList runs `sessions --state-dir STATE list ARGS...` in-process, as
// cmd/sessions does, and returns stdout.
func runList(tb testing.TB, state string, args ...string) *bytes.Buffer {
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(string) string { return "" }, Home: filepath.Dir(state)},
		Flags:  &cmdutil.GlobalFlags{},
		Now:    time.Now,
		Getenv: func(string) string { return "" },
	}
	argv := append([]string{"--state-dir", state, "list"}, args...)
	if code := cli.Run(f, argv); code != 0 {
		tb.Fatalf("sessions %v: exit %d\n%s", argv, code, errOut)
	}
	return out
}

// benchList times `sessions list ARGS...` on a 10,000-entry store cloned
// from the fixture's real entries, with their transcripts (storegen.State).
func benchList(b *testing.B, args ...string) {
	benchListOn(b, storegen.State(b, 10_000), args...)
}

// benchListOn times `sessions list ARGS...` on a given state dir.
func benchListOn(b *testing.B, state string, args ...string) {
	out := runList(b, state, args...) // warm the page cache; check it works
	if !bytes.HasPrefix(out.Bytes(), []byte("{\n  \"count\": ")) {
		b.Fatalf("unexpected output: %.80s", out)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		runList(b, state, args...)
	}
}

// BenchmarkListJSON10k: `sessions list --json` (default --limit 200) end to
// end in-process on a 10,000-entry store: config, store, rows, sort,
// transcript paths, JSON.
func BenchmarkListJSON10k(b *testing.B) { benchList(b, "--json") }

// BenchmarkListJSON10kAll: the same with --limit 10000 (every row printed).
func BenchmarkListJSON10kAll(b *testing.B) { benchList(b, "--json", "--limit", "10000") }

// BenchmarkListJSON10kSQLite: `sessions list --all-agents --limit all
// --json` end to end in-process on the 10,000-session OpenClaw 2026.8+
// SQLite store that internal/sqlitestore's BenchmarkStore10k builds (issue
// 13's speed item; scripts/bench_sqlite.sh builds and keeps it). It needs
// SESSIONS_SQLITE_BENCH_DIR pointing at that kept store:
//
//	SESSIONS_SQLITE_BENCH_DIR=$PWD/.bench/sqlite go test -run '^$' -bench Store10k ./internal/sqlitestore
//	SESSIONS_SQLITE_BENCH_DIR=$PWD/.bench/sqlite go test -run '^$' -bench 10kSQLite ./internal/cmd/list
func BenchmarkListJSON10kSQLite(b *testing.B) {
	dir := os.Getenv("SESSIONS_SQLITE_BENCH_DIR")
	state := filepath.Join(dir, "state")
	if _, err := os.Stat(filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")); dir == "" || err != nil {
		b.Skip("SESSIONS_SQLITE_BENCH_DIR has no 10k SQLite store (build it with internal/sqlitestore's BenchmarkStore10k)")
	}
	benchListOn(b, state, "--all-agents", "--limit", "all", "--json")
}
