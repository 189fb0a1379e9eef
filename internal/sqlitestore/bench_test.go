package sqlitestore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/openclaw/sessions/internal/testutil/rusage"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
)

// The benchmarks work on a 10,000-session agent database cloned from the
// fixture's rows (keys agent:main:bench:<i>, fresh sessionIds, spread
// updatedAt; each entry_json is a real 2026.9.6 entry of about 14 KB), and on
// a 100,000-event transcript cloned from the main session's events. Both are
// built once per process under a temp dir.
//
//	go test -run '^$' -bench . -benchtime 20x ./internal/sqlitestore/

const benchSessions = 10000

var (
	benchOnce sync.Once
	benchDir  string // removed by TestMain
	benchKept string // SESSIONS_SQLITE_BENCH_DIR: kept
	benchErr  error
)

func benchState(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		// SESSIONS_SQLITE_BENCH_DIR keeps the database there (built once,
		// reused), for scripts/bench_sqlite.sh's side-by-side with OpenClaw.
		if keep := os.Getenv("SESSIONS_SQLITE_BENCH_DIR"); keep != "" {
			if _, err := os.Stat(Path(filepath.Join(keep, "state"), "main")); err == nil {
				benchKept = keep
				return
			}
			if benchErr = os.MkdirAll(keep, 0o755); benchErr == nil {
				benchErr = buildBench(b, keep)
			}
			benchKept = keep
			return
		}
		benchDir, benchErr = os.MkdirTemp("", "sqlitestore-bench-")
		if benchErr != nil {
			return
		}
		benchErr = buildBench(b, benchDir)
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	if benchKept != "" {
		return benchKept
	}
	return benchDir
}

func buildBench(b *testing.B, dst string) error {
	src := copyFixture(b)
	if err := os.Rename(src, filepath.Join(dst, "state")); err != nil {
		return err
	}
	p := Path(filepath.Join(dst, "state"), "main")
	w := rw(b, p)
	defer w.Close()
	tx, err := w.Begin()
	if err != nil {
		return err
	}
	// 10k session rows: the fixture's four entries in turn, each with a new
	// key, sessionId and updatedAt (json_set keeps everything else).
	mustExec(b, tx, `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?),
		src AS (SELECT row_number() OVER (ORDER BY session_key) - 1 AS k, entry_json FROM session_nodes)
		INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at)
		SELECT 'agent:main:bench:' || i,
		       printf('%08x-0000-4000-8000-%012x', i, i),
		       json_set(src.entry_json, '$.sessionId', printf('%08x-0000-4000-8000-%012x', i, i), '$.updatedAt', 1795000000000 + i * 1000),
		       1795000000000 + i * 1000
		FROM n JOIN src ON src.k = n.i % 4`, benchSessions-1-4)
	// OpenClaw's writers certify each row (entry_valid = 1); the real
	// `openclaw sessions` refuses uncertified rows, so the clone certifies
	// them too and can be listed by OpenClaw 2026.9.6 for comparison.
	mustExec(b, tx, `UPDATE session_nodes SET entry_valid = 1`)
	// 100k events in the main session: its events repeated.
	mustExec(b, tx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 7700),
		src AS (SELECT seq, event_json, created_at FROM transcript_events WHERE session_id = ? AND seq > 0)
		INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes)
		SELECT ?, 13 * n.i + src.seq, src.event_json, src.created_at, octet_length(src.event_json) FROM n, src`, mainSession, mainSession)
	return tx.Commit()
}

// row is what list prints of a session (enough to cost the same).
type row struct {
	Key           string   `json:"key"`
	SessionID     string   `json:"sessionId"`
	UpdatedAt     *float64 `json:"updatedAt"`
	Model         string   `json:"model,omitempty"`
	ContextTokens *float64 `json:"contextTokens,omitempty"`
	TotalTokens   *float64 `json:"totalTokens,omitempty"`
	LastChannel   string   `json:"lastChannel,omitempty"`
}

func first200(st *store.Store) []byte {
	es := make([]*store.Entry, len(st.Entries))
	for i := range st.Entries {
		es[i] = &st.Entries[i]
	}
	slices.SortStableFunc(es, func(a, b *store.Entry) int { return int(b.Updated() - a.Updated()) })
	rows := make([]row, 0, 200)
	for _, e := range es[:min(200, len(es))] {
		rows = append(rows, row{e.Key, e.SessionID, e.UpdatedAt, e.Model, e.ContextTokens, e.TotalTokens, e.LastChannel})
	}
	out, _ := json.Marshal(rows)
	return out
}

// BenchmarkStore10k: Open + Store() + the first 200 rows of `list`, newest
// first, on the 10k-session database (the direct read of session_nodes).
func BenchmarkStore10k(b *testing.B) { benchStore(b, true, false) }

// BenchmarkStore10kSQL: the same through modernc.org/sqlite only (the path
// before the direct read, and its fallback).
func BenchmarkStore10kSQL(b *testing.B) { benchStore(b, false, false) }

// BenchmarkStoreMeta10k: StoreMeta (what list reads): no entry_json kept.
func BenchmarkStoreMeta10k(b *testing.B) { benchStore(b, true, true) }

func benchStore(b *testing.B, direct, lean bool) {
	p := Path(filepath.Join(benchState(b), "state"), "main")
	defer func(was bool) { directRead = was }(directRead)
	directRead = direct
	b.ResetTimer()
	cpu0 := int64(rusage.CPU())
	for b.Loop() {
		db, err := Open(p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		read := db.Store
		if lean {
			read = db.StoreMeta
		}
		st, err := read()
		if err != nil {
			b.Fatal(err)
		}
		if len(st.Entries) != benchSessions {
			b.Fatalf("%d entries", len(st.Entries))
		}
		first200(st)
		db.Close()
	}
	// CPU time beside wall time: the shared machine's load moves the
	// latter, much less the former.
	b.ReportMetric(float64(int64(rusage.CPU())-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkJSONStore10k: the same 10k entries as a sessions.json read by
// the sessions.json-era reader, for comparison.
func BenchmarkJSONStore10k(b *testing.B) {
	dir := benchState(b)
	jp := filepath.Join(dir, "sessions.json")
	if _, err := os.Stat(jp); err != nil {
		db, err := Open(Path(filepath.Join(dir, "state"), "main"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		st, err := db.Store()
		db.Close()
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		buf.WriteString("{")
		for i, e := range st.Entries {
			if i > 0 {
				buf.WriteString(",")
			}
			k, _ := json.Marshal(e.Key)
			fmt.Fprintf(&buf, "\n  %s: %s", k, e.Raw)
		}
		buf.WriteString("\n}")
		if err := os.WriteFile(jp, buf.Bytes(), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		st, err := store.Load(jp)
		if err != nil || len(st.Entries) != benchSessions {
			b.Fatal(err)
		}
		first200(st)
	}
}

func benchMessages(b *testing.B, o transcript.Options, want int) {
	p := Path(filepath.Join(benchState(b), "state"), "main")
	db, err := Open(p, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.ResetTimer()
	for b.Loop() {
		res, err := db.Messages(mainSession, o)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Messages) != want {
			b.Fatalf("%d messages", len(res.Messages))
		}
	}
}

// BenchmarkMessagesLimit50: `history --limit 50` on a 100k-event transcript
// reads ~90 events from the newest seq back, not 100k.
func BenchmarkMessagesLimit50(b *testing.B) { benchMessages(b, transcript.Options{Limit: 50}, 50) }

// BenchmarkMessagesAll: every message of the 100k-event transcript.
func BenchmarkMessagesAll(b *testing.B) {
	benchMessages(b, transcript.Options{IncludeTools: true}, 6*7701)
}
