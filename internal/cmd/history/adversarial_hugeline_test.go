package history_test

import (
	"crypto/sha256"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
)

// hugeState is a copy of the 2026.1.30 fixture whose main session ends
// with one assistant message of size bytes of text, on one line.
func hugeState(tb testing.TB, size int) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "state")
	if err := os.CopyFS(dir, os.DirFS("../../../testdata/state-2026.1.30")); err != nil {
		tb.Fatal(err)
	}
	sessions := filepath.Join(dir, "agents", "main", "sessions")
	var store map[string]struct {
		SessionID string `json:"sessionId"`
	}
	b, err := os.ReadFile(filepath.Join(sessions, "sessions.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, &store); err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(sessions, store["agent:main:main"].SessionID+".jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var last struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		tb.Fatal(err)
	}
	msg := map[string]any{
		"type": "message", "id": "huge0001", "parentId": last.ID, "timestamp": "2026-11-21T04:45:00.000Z",
		"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text",
			"text": strings.Repeat("word \"q\" é\t", size/13)}}, "timestamp": 1795236300000},
	}
	line, err := json.Marshal(msg)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// runHistory runs `sessions history main ARGS` and returns its stdout
// (hashed, to keep it out of the heap measured) and the peak of the live
// heap while it ran, sampled.
func runHistory(tb testing.TB, dir string, args ...string) (sum [32]byte, n int, peak uint64) {
	tb.Helper()
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var max atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > max.Load() {
				max.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	h := sha256.New()
	cw := &countWriter{w: h}
	ios, _, _, _ := iostreams.Test()
	ios.Out, ios.ErrOut = cw, io.Discard
	f := &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"},
		Flags:  &cmdutil.GlobalFlags{},
		Log:    log.New(io.Discard),
		Now:    time.Now,
		Getenv: func(string) string { return "" },
	}
	code := cli.Run(f, append([]string{"--state-dir", dir, "history", "main"}, args...))
	close(stop)
	wg.Wait()
	if code != 0 {
		tb.Fatalf("exit %d", code)
	}
	copy(sum[:], h.Sum(nil))
	p := max.Load()
	if p > base.HeapAlloc {
		p -= base.HeapAlloc
	} else {
		p = 0
	}
	return sum, cw.n, p
}

type countWriter struct {
	w io.Writer
	n int
}

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return c.w.Write(p) }

// BenchmarkHistoryHugeMessage: the live heap's peak (sampled) while
// history prints one 50 MB message, as a multiple of the message's size.
func BenchmarkHistoryHugeMessage(b *testing.B) {
	const size = 50 << 20
	dir := hugeState(b, size)
	for _, args := range [][]string{nil, {"--json"}, {"--raw"}, {"--format", "markdown"}} {
		b.Run(strings.Join(append([]string{"history"}, args...), "_"), func(b *testing.B) {
			var peak uint64
			for b.Loop() {
				_, _, p := runHistory(b, dir, args...)
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(peak)/size, "peak/size")
		})
	}
}

// history holds a huge single-line message within a small multiple of its
// size (it peaked at 11 times it: the line copied by the object decoder,
// its text unescaped while scanning members, and decoded whole into UTF-16
// only to be cut at 12,000 characters). The live heap is sampled with the
// collector run often, so that garbage not yet collected does not count.
func TestAdversarialHistoryHugeMessageMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 24 MB transcript line")
	}
	const size = 24 << 20
	dir := hugeState(t, size)
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	for _, args := range [][]string{nil, {"--json"}} {
		_, n, peak := runHistory(t, dir, args...)
		t.Logf("history %v: %d bytes out, live heap peak %.1f MB (%.1f× the message)", args, n, float64(peak)/(1<<20), float64(peak)/size)
		if peak > 8*size {
			t.Errorf("history %v: the live heap peaked at %.1f× the message, want at most 8×", args, float64(peak)/size)
		}
	}
}
