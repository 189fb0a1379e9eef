package metrics

import (
	"bytes"
	"context"
	"github.com/openclaw/sessions/internal/testutil/rusage"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"charm.land/log/v2"
	listcmd "github.com/openclaw/sessions/internal/cmd/list"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/storecache"
	"github.com/openclaw/sessions/internal/testutil/storegen"
)

// The 10,000-session stores of the benchmarks, both eras: storegen's
// JSON-era state (10,000 entries with their transcripts, in a temp dir),
// and the 2026.8+ SQLite store internal/sqlitestore's BenchmarkStore10k
// keeps in $SESSIONS_SQLITE_BENCH_DIR (skipped without it):
//
//	SESSIONS_SQLITE_BENCH_DIR=$PWD/.bench/sqlite go test -run '^$' -bench 'BenchmarkStore10k$' -benchtime 1x ./internal/sqlitestore
//	SESSIONS_SQLITE_BENCH_DIR=$PWD/.bench/sqlite go test -run '^$' -bench 'Metrics(Scrape|ListenIdle)10k' -count 5 ./internal/cmd/metrics
var bench10kEras = []struct {
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

// benchFactory is a factory on state whose caches (the usage cache) live in
// a temp dir of b.
func benchFactory(b *testing.B, state string) *cmdutil.Factory {
	tmp := b.TempDir()
	env := map[string]string{"HOME": tmp, "XDG_CACHE_HOME": filepath.Join(tmp, "cache"), "XDG_STATE_HOME": filepath.Join(tmp, "state")}
	b.Setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"]) // usage.CacheDir reads the process's
	getenv := func(k string) string { return env[k] }
	ios, _, _, _ := iostreams.Test()
	return &cmdutil.Factory{IO: ios, Env: config.Env{Getenv: getenv, Home: tmp}, Flags: &cmdutil.GlobalFlags{StateDir: state},
		Now: time.Now, Getenv: getenv, Log: log.New(io.Discard)}
}

// listAll runs `sessions list --all-agents --limit all --json` in process,
// as the CLI does it: a fresh factory (nothing cached), the rows read and
// printed as JSON.
func listAll(b *testing.B, base *cmdutil.Factory) {
	ios, _, out, _ := iostreams.Test()
	f := &cmdutil.Factory{IO: ios, Env: base.Env, Flags: &cmdutil.GlobalFlags{StateDir: base.Flags.StateDir, JSON: true},
		Now: time.Now, Getenv: base.Getenv, Log: log.New(io.Discard)}
	cmd := listcmd.NewCmd(f, nil)
	cmd.SetArgs([]string{"--all-agents", "--limit", "all"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err != nil {
		b.Fatal(err)
	}
	if !bytes.HasPrefix(out.Bytes(), []byte("{\n  \"count\": ")) {
		b.Fatalf("list: %.80s", out)
	}
}

// cpuOf is the process CPU time (user + system) and wall time fn takes.
func cpuOf(fn func()) (cpu, wall time.Duration) {
	c0, t0 := rusage.CPU(), time.Now()
	fn()
	return rusage.CPU() - c0, time.Since(t0)
}

// BenchmarkMetricsScrape10k: what a scrape of `sessions metrics` costs on
// the 10,000-session stores of both eras (bench10kEras), side by side with
// `sessions list --all-agents --limit all --json` on the same store in the
// same run.
//
// Method. Every figure is the CPU time of the whole process (getrusage
// RUSAGE_SELF: user + system), which the load of a shared machine moves
// least; wall times beside it. In order, in one process:
//
//   - list-cpu-ns: `list --all-agents --limit all --json` in process
//     (internal/cmd/list, a fresh factory each time: no cache), the median
//     of 5 (list-ns: its wall time).
//   - the state's files are then left alone for storecache.RacyWindow, as
//     an idle host's are: a reading of a file changed less than that
//     before is never trusted to be its version (and read again).
//   - cold-cpu-ns: the first scrape of a Metrics built as --listen builds
//     it, with no usage cache on disk: every transcript read, doctor
//     checked (cold-ns: wall).
//   - cpu-ns/op: a warm scrape, what each scrape of a --listen server
//     costs while the state does not change (the stores, their
//     directories and every transcript as the last scrape saw them;
//     doctor's findings reused within --doctor-every): the mean over b.N
//     scrapes after one more scrape.
//   - JSON era only, after the loop: append-cpu-ns, the scrape after one
//     message is appended to one transcript (as OpenClaw appends it: that
//     transcript is read again, usage rolled up again), and store-cpu-ns,
//     the scrape after sessions.json is written again (its mtime moved, as
//     OpenClaw's write on each turn moves it: the structure is read again
//     through the operations).
//
// Run it with -count 5 (or more) and take the medians: the machine's load
// moves single runs.
func BenchmarkMetricsScrape10k(b *testing.B) {
	for _, e := range bench10kEras {
		b.Run(e.name, func(b *testing.B) {
			state := e.state(b)
			f := benchFactory(b, state)
			var listCPU, listWall []time.Duration
			for range 5 {
				c, w := cpuOf(func() { listAll(b, f) })
				listCPU, listWall = append(listCPU, c), append(listWall, w)
			}
			slices.Sort(listCPU)
			slices.Sort(listWall)
			time.Sleep(storecache.RacyWindow + 100*time.Millisecond)
			m, err := newMetrics(f, &Options{Active: time.Hour, Listen: "x", DoctorEvery: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			scrape := func() {
				if err := m.Write(io.Discard, false); err != nil {
					b.Fatal(err)
				}
			}
			coldCPU, coldWall := cpuOf(scrape)
			scrape()
			n := 0
			b.ResetTimer()
			c0 := rusage.CPU()
			for b.Loop() {
				scrape()
				n++
			}
			scrapeCPU := (rusage.CPU() - c0) / time.Duration(max(1, n))
			b.StopTimer()
			b.ReportMetric(float64(scrapeCPU.Nanoseconds()), "cpu-ns/op")
			b.ReportMetric(float64(coldCPU.Nanoseconds()), "cold-cpu-ns")
			b.ReportMetric(float64(coldWall.Nanoseconds()), "cold-ns")
			b.ReportMetric(float64(listCPU[len(listCPU)/2].Nanoseconds()), "list-cpu-ns")
			b.ReportMetric(float64(listWall[len(listWall)/2].Nanoseconds()), "list-ns")
			if e.name != "json" {
				return
			}
			sessions := filepath.Join(state, "agents", "main", "sessions")
			ents, err := os.ReadDir(sessions)
			if err != nil {
				b.Fatal(err)
			}
			var tr string
			for _, de := range ents {
				if filepath.Ext(de.Name()) == ".jsonl" {
					tr = filepath.Join(sessions, de.Name())
					break
				}
			}
			line := `{"type":"message","id":"bench0001","timestamp":"2026-11-28T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],` +
				`"provider":"mock","model":"mock-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"total":0.001}}}}` + "\n"
			fh, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := fh.WriteString(line); err != nil {
				b.Fatal(err)
			}
			fh.Close()
			appendCPU, _ := cpuOf(scrape)
			store := filepath.Join(sessions, "sessions.json")
			if err := os.Chtimes(store, time.Now(), time.Now()); err != nil {
				b.Fatal(err)
			}
			storeCPU, _ := cpuOf(scrape)
			b.ReportMetric(float64(appendCPU.Nanoseconds()), "append-cpu-ns")
			b.ReportMetric(float64(storeCPU.Nanoseconds()), "store-cpu-ns")
		})
	}
}

// BenchmarkMetricsListenIdle10k: the CPU an idle `sessions metrics
// --listen` takes between scrapes, on the 10,000-session stores
// (bench10kEras). The server runs in process as the command runs it; after
// two scrapes over HTTP (the cold one, a warm one) nothing is asked of it
// for twice $SESSIONS_IDLE_SECONDS (default 10), and the process's CPU time
// (getrusage: user + system, the benchmark's own idle goroutines included)
// over each interval is reported in % of one core: idle-cpu-% the first
// (the Go runtime still finishing the scrapes' garbage collection and
// returning their memory to the system), settled-cpu-% the second.
// Nothing between scrapes polls or wakes.
func BenchmarkMetricsListenIdle10k(b *testing.B) {
	idle := 10 * time.Second
	if v, err := time.ParseDuration(os.Getenv("SESSIONS_IDLE_SECONDS") + "s"); err == nil && v > 0 {
		idle = v
	}
	for _, e := range bench10kEras {
		b.Run(e.name, func(b *testing.B) {
			f := benchFactory(b, e.state(b))
			ctx, cancel := context.WithCancel(context.Background())
			ready := make(chan string, 1)
			done := make(chan error, 1)
			cmd := NewCmd(f, func(o *Options) error {
				o.Context, o.Ready = ctx, func(addr string) { ready <- addr }
				return run(o)
			})
			cmd.SetArgs([]string{"--listen", "127.0.0.1:0"})
			go func() { done <- cmd.Execute() }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					b.Error(err)
				}
			}()
			var addr string
			select {
			case addr = <-ready:
			case err := <-done:
				b.Fatal(err)
			}
			get := func() {
				res, err := http.Get("http://" + addr + Path)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					b.Fatal(res.Status)
				}
			}
			get()
			get()
			var first, settled float64
			for b.Loop() {
				cpu, wall := cpuOf(func() { time.Sleep(idle) })
				first = 100 * float64(cpu) / float64(wall)
				cpu, wall = cpuOf(func() { time.Sleep(idle) })
				settled = 100 * float64(cpu) / float64(wall)
			}
			b.ReportMetric(first, "idle-cpu-%")
			b.ReportMetric(settled, "settled-cpu-%")
		})
	}
}
