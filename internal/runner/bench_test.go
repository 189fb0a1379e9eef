package runner

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/engine"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
)

// The phases of a runner turn in isolation, on the data of
// scripts/bench_send.sh: SESSIONS_BENCH_STATE is a state dir whose main
// store is large (10,000 entries) and SESSIONS_BENCH_BIG the key of an entry
// of it with a large (200 MB) transcript. Skipped when unset.
//
//	SESSIONS_BENCH_STATE=.bench/send/data SESSIONS_BENCH_BIG=agent:main:synthetic:s0 \
//	  go test -run '^$' -bench Phase -benchtime 5x ./internal/runner/

func benchData(b *testing.B) (storePath, transcriptPath string) {
	b.Helper()
	dir, key := os.Getenv("SESSIONS_BENCH_STATE"), os.Getenv("SESSIONS_BENCH_BIG")
	if dir == "" || key == "" {
		b.Skip("SESSIONS_BENCH_STATE / SESSIONS_BENCH_BIG not set (see scripts/bench_send.sh)")
	}
	storePath = filepath.Join(dir, "agents", "main", "sessions", "sessions.json")
	st, err := store.Load(storePath)
	if err != nil {
		b.Fatal(err)
	}
	e, ok := st.Lookup(key)
	if !ok {
		b.Fatalf("no entry %s in %s", key, storePath)
	}
	return storePath, filepath.Join(filepath.Dir(storePath), e.SessionID+".jsonl")
}

func copyFile(b *testing.B, src, dst string) {
	b.Helper()
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}

// locate: the store read that finds a session's entry.
func BenchmarkPhaseStoreLoad(b *testing.B) {
	sp, _ := benchData(b)
	for b.Loop() {
		if _, err := store.Load(sp); err != nil {
			b.Fatal(err)
		}
	}
}

// store: recording a turn in the entry (read, mutate, write, fsync, rename
// under OpenClaw's store lock).
func BenchmarkPhaseStoreUpdate(b *testing.B) {
	sp, _ := benchData(b)
	tmp := filepath.Join(b.TempDir(), "sessions.json")
	copyFile(b, sp, tmp)
	key := os.Getenv("SESSIONS_BENCH_BIG")
	ctx := context.Background()
	for b.Loop() {
		_, err := store.Update(ctx, tmp, store.UpdateOptions{LockTimeout: 10 * time.Second}, func(tx *store.Tx) error {
			e, ok := tx.Entry(key)
			if !ok {
				b.Fatalf("no entry %s", key)
			}
			_ = e.Set("updatedAt", time.Now().UnixMilli())
			_ = e.Set("totalTokens", 1234)
			tx.Put(key, e)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// history: the transcript's leaf path (the provider engine's context).
func BenchmarkPhaseLeafPath(b *testing.B) {
	_, tp := benchData(b)
	st, err := os.Stat(tp)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	n := 0
	for b.Loop() {
		msgs, err := transcript.LeafPath(tp, nil)
		if err != nil {
			b.Fatal(err)
		}
		n = len(msgs)
	}
	b.ReportMetric(float64(n), "messages")
}

// append: the turn's user and assistant messages, under OpenClaw's
// transcript lock (on a copy of the large transcript).
func BenchmarkPhaseAppend(b *testing.B) {
	_, tp := benchData(b)
	tmp := filepath.Join(b.TempDir(), filepath.Base(tp))
	copyFile(b, tp, tmp)
	ctx := context.Background()
	for b.Loop() {
		now := time.Now()
		_, err := transcript.Append(ctx, tmp, transcript.AppendOptions{LockTimeout: 10 * time.Second},
			engine.UserMessage("bench", now),
			engine.AssistantMessage("ok", "", "", "exec", "bench", "bench", engine.Usage{}, "stop", "", now))
		if err != nil {
			b.Fatal(err)
		}
	}
}

// fit: the leaf path of the large transcript fitted to a 128k-token model
// (the provider engine's context): the kept history stays under the budget
// and ends with the transcript's newest message.
func BenchmarkPhaseFitContext(b *testing.B) {
	_, tp := benchData(b)
	msgs, err := transcript.LeafPath(tp, nil)
	if err != nil {
		b.Fatal(err)
	}
	budget := engine.HistoryBudget(128_000, 4096, "", "")
	var kept []json.RawMessage
	for b.Loop() {
		kept, _ = engine.FitHistory(msgs, budget)
	}
	total := 0
	for _, m := range kept {
		total += engine.EstimateTokens(m)
	}
	if total > budget || len(kept) == 0 || string(kept[len(kept)-1]) != string(msgs[len(msgs)-1]) {
		b.Fatalf("kept %d of %d messages, %d tokens (budget %d)", len(kept), len(msgs), total, budget)
	}
	b.ReportMetric(float64(len(msgs)), "leaf-messages")
	b.ReportMetric(float64(len(kept)), "kept-messages")
	b.ReportMetric(float64(total), "kept-tokens")
}
