package ops

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/export"
)

// bigTranscript replaces the main session's transcript of a fixture copy
// with one of about mb MiB: the fixture's lines replayed with fresh ids,
// one tool result in ten carrying 64 KiB of output (a transcript's big
// lines). It returns the number of messages written.
func bigTranscript(b *testing.B, dir string, mb int) int {
	b.Helper()
	path := filepath.Join(dir, "agents", "main", "sessions", "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(src)), "\n")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, lines[0])
	big := strings.Repeat("output line of a long tool result\\n", 64<<10/36)
	n, written, i := 0, int64(0), 0
	for written < int64(mb)<<20 {
		for _, ln := range lines[1:] {
			if !strings.Contains(ln, `"type":"message"`) {
				continue
			}
			ln = strings.Replace(ln, `"id":"`, `"id":"`+strconv.Itoa(i)+`-`, 1)
			if i%10 == 0 && strings.Contains(ln, `"role":"toolResult"`) {
				ln = strings.Replace(ln, `"text":"`, `"text":"`+big, 1)
			}
			i++
			k, _ := fmt.Fprintln(w, ln)
			written += int64(k)
			n++
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return n
}

// BenchmarkExport: a whole 200 MiB transcript (SESSIONS_BENCH_EXPORT_MB)
// exported in each format, beside reading the same messages with history's
// reader (every page of 1000, raw, tools included: what a script did before
// export), in one run: compare the ns/op.
func BenchmarkExport(b *testing.B) {
	mb := 200
	if v, err := strconv.Atoi(os.Getenv("SESSIONS_BENCH_EXPORT_MB")); err == nil && v > 0 {
		mb = v
	}
	o, dir := fixtureOps(b, "state-2026.1.30", nil, Config{})
	n := bigTranscript(b, dir, mb)
	size := int64(0)
	if fi, err := os.Stat(filepath.Join(dir, "agents", "main", "sessions", "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")); err == nil {
		size = fi.Size()
	}
	ctx := context.Background()
	b.Run("history-reader", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			got := 0
			sess, page, err := o.OpenHistory(ctx, "main", "", HistoryQuery{Limit: HistoryMaxLimit, IncludeTools: true, Raw: true})
			if err != nil {
				b.Fatal(err)
			}
			for {
				got += len(page.Messages)
				if !page.HasMore {
					break
				}
				if page, err = o.History(ctx, sess, HistoryQuery{Limit: HistoryMaxLimit, IncludeTools: true, Raw: true, Before: page.NextCursor}); err != nil {
					b.Fatal(err)
				}
			}
			sess.Close()
			if got != n {
				b.Fatalf("history read %d messages, want %d", got, n)
			}
		}
	})
	for _, f := range []export.Format{export.JSONL, export.JSON, export.Markdown, export.HTML} {
		b.Run("export-"+string(f), func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				res, err := o.Export(ctx, "main", "", ExportQuery{Format: f}, io.Discard)
				if err != nil {
					b.Fatal(err)
				}
				if res.Messages != n {
					b.Fatalf("exported %d messages, want %d", res.Messages, n)
				}
			}
		})
	}
}
