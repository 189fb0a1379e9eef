package mcpserver_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkMCPRSS10k: the peak RSS of a `sessions mcp` process that served
// sessions_list on the 10k store (twice in a row, then 16 calls at once),
// against the peak RSS of one `sessions list --json` process on the same
// store (the target: at most twice). Each iteration is one server and one
// list process; the largest peaks are reported (maxrss-KB: the server's).
//
// Both are measured by GNU time (/usr/bin/time, which forks): the rusage
// of a child this process starts directly would count this process's own
// peak too (Go starts children with vfork, and Linux carries the parent's
// high-water mark into the child's at exec).
func BenchmarkMCPRSS10k(b *testing.B) {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		b.Skip("GNU time (/usr/bin/time) not found")
	}
	forEras(b, func(b *testing.B, state string) {
		env := benchEnv(b)
		out := filepath.Join(b.TempDir(), "maxrss")
		timed := []string{"/usr/bin/time", "-f", "%M", "-o", out}
		var server, cli int64
		for b.Loop() {
			srv := serveWith(b, state, env, timed...)
			srv.list(b)
			srv.list(b)
			var wg sync.WaitGroup
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := srv.call(); err != nil {
						b.Error(err)
					}
				}()
			}
			wg.Wait()
			srv.stop(b)
			server = max(server, readKB(b, out))
			cliList(b, state, env, timed...)
			cli = max(cli, readKB(b, out))
		}
		b.ReportMetric(float64(server), "maxrss-KB")
		b.ReportMetric(float64(cli), "cli-maxrss-KB")
		b.ReportMetric(float64(server)/float64(cli), "mcp/cli")
	})
}

// readKB reads the peak RSS (KB) GNU time wrote.
func readKB(b *testing.B, path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		b.Fatalf("%s: empty", path)
	}
	kb, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	if err != nil {
		b.Fatalf("%s: %q", path, data)
	}
	return kb
}

// procCPU is the CPU time (user + system) process pid has used so far
// (/proc/PID/stat, in clock ticks of 10 ms); ok is false when unreadable.
func procCPU(pid int) (d time.Duration, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// the fields after the command (which may hold spaces) in parentheses
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, true
}
