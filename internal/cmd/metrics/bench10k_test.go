package metrics

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/testutil/storegen"
)

// BenchmarkMetricsScrape10k: a warm scrape (what each scrape of a
// --listen server costs once the stores are cached; doctor's findings
// reused) beside one list of every session (`sessions list --limit all
// --json`'s reading, in process, with no cache), on the 10,000-session
// stores of both eras: storegen's JSON state, and the SQLite store
// internal/sqlitestore's BenchmarkStore10k keeps in
// $SESSIONS_SQLITE_BENCH_DIR (skipped without it). Reports the warm
// scrape as ns/op, the first (cold) scrape as cold-ns and the listing as
// list-ns.
func BenchmarkMetricsScrape10k(b *testing.B) {
	eras := []struct {
		name  string
		state func(b *testing.B) string
	}{
		{"json", func(b *testing.B) string { return storegen.State(b, 10_000) }},
		{"sqlite", func(b *testing.B) string {
			dir := os.Getenv("SESSIONS_SQLITE_BENCH_DIR")
			state := filepath.Join(dir, "state")
			if _, err := os.Stat(filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")); dir == "" || err != nil {
				b.Skip("SESSIONS_SQLITE_BENCH_DIR has no 10k SQLite store (build it with internal/sqlitestore's BenchmarkStore10k)")
			}
			return state
		}},
	}
	for _, e := range eras {
		b.Run(e.name, func(b *testing.B) {
			state := e.state(b)
			tmp := b.TempDir()
			env := map[string]string{"HOME": tmp, "XDG_CACHE_HOME": filepath.Join(tmp, "cache"), "XDG_STATE_HOME": filepath.Join(tmp, "state")}
			getenv := func(k string) string { return env[k] }
			ios, _, _, _ := iostreams.Test()
			f := &cmdutil.Factory{IO: ios, Env: config.Env{Getenv: getenv, Home: tmp}, Flags: &cmdutil.GlobalFlags{StateDir: state},
				Now: time.Now, Getenv: getenv, Log: log.New(io.Discard)}
			var lists []time.Duration
			c0 := cpuTime()
			for range 5 {
				t0 := time.Now()
				if _, err := f.NewOps().List(context.Background(), ops.ListQuery{Limit: -1, AllAgents: true}); err != nil {
					b.Fatal(err)
				}
				lists = append(lists, time.Since(t0))
			}
			listCPU := (cpuTime() - c0) / 5
			slices.Sort(lists)
			m, err := newMetrics(f, &Options{Active: time.Hour, Listen: "x", DoctorEvery: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			if err := m.Write(io.Discard, false); err != nil {
				b.Fatal(err)
			}
			cold := time.Since(t0)
			n := 0
			b.ResetTimer()
			c0 = cpuTime()
			for b.Loop() {
				if err := m.Write(io.Discard, false); err != nil {
					b.Fatal(err)
				}
				n++
			}
			scrapeCPU := (cpuTime() - c0) / time.Duration(max(1, n))
			b.StopTimer()
			// CPU time (user + system, the whole process), which a shared
			// machine's load moves least
			b.ReportMetric(float64(scrapeCPU.Nanoseconds()), "cpu-ns/op")
			b.ReportMetric(float64(cold.Nanoseconds()), "cold-ns")
			b.ReportMetric(float64(lists[len(lists)/2].Nanoseconds()), "list-ns")
			b.ReportMetric(float64(listCPU.Nanoseconds()), "list-cpu-ns")
		})
	}
}
