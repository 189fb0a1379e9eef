package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/storegen"
)

// The MCP server's benchmarks run the built binary as a client would:
// `sessions --state-dir STATE mcp --read-only` on stdio, driven by the
// SDK's client, beside `sessions --state-dir STATE list --json` processes on
// the same state. Both answer the same question (the 200 newest sessions of
// the operator's agent), on a 10,000-session store of either era:
//
//	go test -run '^$' -bench 'MCP' -benchtime 200x ./internal/mcpserver
//
// The JSON era's store is storegen's (the fixture's real entries cloned,
// with their transcripts); the SQLite era's is the one internal/sqlitestore's
// BenchmarkStore10k keeps in $SESSIONS_SQLITE_BENCH_DIR (skipped without it):
//
//	SESSIONS_SQLITE_BENCH_DIR=$PWD/.bench/sqlite go test -run '^$' -bench 'BenchmarkStore10k$' -benchtime 1x ./internal/sqlitestore
//
// scripts/bench_mcp.sh (make bench-mcp) runs both and prints the figures of
// docs/PERFORMANCE.md.

// benchEra is one era's 10k state for a benchmark.
type benchEra struct {
	name  string
	state func(b *testing.B) string
}

var benchEras = []benchEra{
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

// forEras runs fn on each era's 10k state.
func forEras(b *testing.B, fn func(b *testing.B, state string)) {
	for _, e := range benchEras {
		b.Run(e.name, func(b *testing.B) { fn(b, e.state(b)) })
	}
}

// benchEnv is the environment of the processes: this one's, with a
// HOME of their own and no OpenClaw variables (the state dir is a flag).
func benchEnv(b *testing.B) []string {
	home := b.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "OPENCLAW_") || strings.HasPrefix(kv, "SESSIONS_") || strings.HasPrefix(kv, "HOME=") ||
			strings.HasPrefix(kv, "XDG_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"), "NO_COLOR=1")
}

// served is a `sessions mcp` process and its client session.
type served struct {
	cmd   *exec.Cmd
	cs    *mcp.ClientSession
	ready time.Duration // from the process's start to the answer of initialize
}

// serve starts `sessions --state-dir STATE mcp --read-only` and connects
// to it over stdio (initialize and its answer).
func serve(b *testing.B, state string, env []string) *served {
	b.Helper()
	return serveWith(b, state, env)
}

// serveWith is serve with the server's command line behind a prefix (a
// program that runs it, e.g. /usr/bin/time).
func serveWith(b *testing.B, state string, env []string, prefix ...string) *served {
	b.Helper()
	argv := append(prefix, testutil.SessionsBinary(b), "--state-dir", state, "mcp", "--read-only")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stderr = os.Stderr
	start := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return &served{cmd: cmd, cs: cs, ready: time.Since(start)}
}

// list calls sessions_list with no arguments (as `list --json`: the 200
// newest sessions of the operator's agent).
func (s *served) list(b *testing.B) {
	if err := s.call(); err != nil {
		b.Fatal(err)
	}
}

// call is list for any goroutine.
func (s *served) call() error {
	res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sessions_list", Arguments: map[string]any{}})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("sessions_list: %s", text(res))
	}
	return nil
}

// stop ends the server (its stdin closed) and waits for it.
func (s *served) stop(b *testing.B) {
	if err := s.cs.Close(); err != nil && s.cmd.ProcessState == nil {
		b.Fatal(err)
	}
}

// cliList runs one `sessions --state-dir STATE list --json` process and
// returns how long it took and its state when it ended.
func cliList(b *testing.B, state string, env []string, prefix ...string) (time.Duration, *os.ProcessState) {
	b.Helper()
	argv := append(prefix, testutil.SessionsBinary(b), "--state-dir", state, "list", "--json")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	start := time.Now()
	out, err := cmd.Output()
	d := time.Since(start)
	if err != nil || !strings.HasPrefix(string(out), "{\n  \"count\": 200,") {
		b.Fatalf("sessions list --json: %v: %.80s", err, out)
	}
	return d, cmd.ProcessState
}

// median of ds (sorted in place).
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// quantile q (0..1) of ds (sorted in place), nearest rank.
func quantile(ds []time.Duration, q float64) time.Duration {
	slices.Sort(ds)
	i := int(q*float64(len(ds))+0.5) - 1
	return ds[max(0, min(i, len(ds)-1))]
}

// cliRuns is how many list processes a benchmark times for its
// comparison (their median is reported).
const cliRuns = 11

// BenchmarkMCPList10k: one sessions_list call of a warm server (the store
// parsed by an earlier call and still valid), against one `sessions list
// --json` process on the same store: cli-ns/op is that process's median,
// cli/mcp how many warm calls fit in one process's time (the target: 5 or
// more), first-ns the server's first call (nothing cached yet);
// srv-cpu-ns/op and cli-cpu-ns/op the CPU time of one call in the server
// and of one list process (the server's read on Linux only), which a
// shared machine's load moves least.
//
// The list processes run between the calls (one every b.N/cliRuns calls,
// the timer stopped): on a shared machine both sides see the same load.
func BenchmarkMCPList10k(b *testing.B) {
	forEras(b, func(b *testing.B, state string) {
		env := benchEnv(b)
		cliList(b, state, env) // checked, and the store in the page cache
		srv := serve(b, state, env)
		defer srv.stop(b)
		t0 := time.Now()
		srv.list(b)
		first := time.Since(t0)
		srv.list(b)
		var calls, cli []time.Duration
		var cliCPU time.Duration
		every := max(1, b.N/cliRuns)
		cpu0, cpuOK := procCPU(srv.cmd.Process.Pid)
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			if i%every == 0 && len(cli) < cliRuns {
				b.StopTimer()
				d, ps := cliList(b, state, env)
				cli = append(cli, d)
				cliCPU += ps.UserTime() + ps.SystemTime()
				b.StartTimer()
			}
			t := time.Now()
			srv.list(b)
			calls = append(calls, time.Since(t))
		}
		b.StopTimer()
		c, m := median(cli), median(calls)
		b.ReportMetric(float64(m.Nanoseconds()), "p50-ns")
		b.ReportMetric(float64(c.Nanoseconds()), "cli-ns/op")
		b.ReportMetric(float64(c)/float64(m), "cli/mcp")
		b.ReportMetric(float64(first.Nanoseconds()), "first-ns")
		// CPU time, which a shared machine's load moves least: the
		// server's per call, a list process's (mean)
		if cpu1, ok := procCPU(srv.cmd.Process.Pid); ok && cpuOK {
			b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(len(calls)), "srv-cpu-ns/op")
		}
		b.ReportMetric(float64(cliCPU.Nanoseconds())/float64(len(cli)), "cli-cpu-ns/op")
	})
}

// BenchmarkMCPList10kConcurrent16: 16 clients' calls of sessions_list at
// once on one warm server (b.N calls in all, 16 in flight): the latency
// of each call, p50 and p99.
func BenchmarkMCPList10kConcurrent16(b *testing.B) {
	const callers = 16
	forEras(b, func(b *testing.B, state string) {
		srv := serve(b, state, benchEnv(b))
		defer srv.stop(b)
		srv.list(b)
		lat := make([][]time.Duration, callers)
		b.ResetTimer()
		var wg sync.WaitGroup
		var next sync.Mutex
		n := 0
		for w := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					next.Lock()
					more := n < b.N
					n++
					next.Unlock()
					if !more {
						return
					}
					t := time.Now()
					if err := srv.call(); err != nil {
						b.Error(err)
						return
					}
					lat[w] = append(lat[w], time.Since(t))
				}
			}()
		}
		wg.Wait()
		b.StopTimer()
		all := slices.Concat(lat...)
		b.ReportMetric(float64(quantile(all, 0.50).Nanoseconds()), "p50-ns")
		b.ReportMetric(float64(quantile(all, 0.99).Nanoseconds()), "p99-ns")
	})
}

// BenchmarkMCPReady: from starting `sessions mcp` to the answer of its
// initialize (the client connected), per start (the target: 50 ms).
func BenchmarkMCPReady(b *testing.B) {
	state := filepath.Join(b.TempDir(), "state")
	if err := testutil.CopyTree(testutil.Fixture(b), state); err != nil {
		b.Fatal(err)
	}
	env := benchEnv(b)
	serve(b, state, env).stop(b) // built, and in the page cache
	var ready []time.Duration
	b.ResetTimer()
	for b.Loop() {
		srv := serve(b, state, env)
		ready = append(ready, srv.ready)
		b.StopTimer()
		srv.stop(b)
		b.StartTimer()
	}
	b.ReportMetric(float64(median(ready).Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(quantile(ready, 0.99).Nanoseconds()), "p99-ns")
}
