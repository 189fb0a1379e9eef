package searchindex

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/testutil/bigstate"
	"github.com/openclaw/sessions/internal/testutil/rusage"
)

// BenchmarkCatchUpStore is BenchmarkCatchUp for a 2026.8+ store: one
// event committed to one session of the bench state's store (5,000
// sessions at its default size), then the backlog, the update with its
// stamps and the rare query, as a long-lived process does them (the
// JSONL transcripts listed, as BenchmarkCatchUp/listed). Every session
// is given a window and a generation, as OpenClaw keeps one for each
// transcript, and the commit advances its window's clock as OpenClaw's
// append does: the update asks the store what changed (a row per
// window) and reads that session alone. The writer's commit is not
// timed.
func BenchmarkCatchUpStore(b *testing.B) {
	st, all := benchState(b)
	// the store copied, so that a writer may commit to it
	dbPath := filepath.Join(b.TempDir(), filepath.Base(st.DB))
	copyFile(b, st.DB, dbPath)
	w, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)")
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for _, q := range []string{
		`INSERT OR IGNORE INTO session_windows (session_id, session_key, created_at, updated_at, transcript_updated_at)
			SELECT DISTINCT session_id, 'agent:main:bench-' || session_id, 1795255200000, 1795255200000, 1795255200000 FROM transcript_events`,
		`INSERT OR IGNORE INTO transcript_rewrite_watermarks (session_id, generation, updated_at)
			SELECT session_id, lower(hex(randomblob(16))), 1795255200000 FROM session_windows`,
	} {
		if _, err := w.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
	db, err := sqlitestore.Open(dbPath, sqlitestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var srcs []search.Source
	for _, src := range all {
		if src.DB != nil {
			src.DB = db
		}
		srcs = append(srcs, src)
	}
	e := &trigramEngine{}
	e.build(b, srcs)
	defer e.close()
	session := st.Sessions[0]
	var k int
	for i := range srcs {
		if srcs[i].SessionID == session {
			k = i
		}
	}
	q := search.Query{Pattern: bigstate.Rare}
	seq := 1 << 20
	var cpu time.Duration // of the catch-ups, not of the writer's commits
	for b.Loop() {
		b.StopTimer()
		seq++
		ev := fmt.Sprintf(`{"type":"message","id":"cs%d","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"one more %s"}}`, seq, bigstate.Rare)
		tx, err := w.Begin()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 1795255200000)`, session, seq, ev); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(`UPDATE session_windows SET transcript_updated_at = transcript_updated_at + 1 WHERE session_id = ?`, session); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := rusage.CPU()
		srcs := listed(b, srcs) // as a search lists them: a batch of lstats
		bl, err := e.ix.Backlog(srcs)
		if err != nil {
			b.Fatal(err)
		}
		stats, err := e.ix.UpdateStamped(context.Background(), srcs, bl.Stamps)
		if err != nil || stats.Appended != 1 {
			b.Fatal(stats, err)
		}
		if len(e.candidates(b, q)[k]) == 0 {
			b.Fatal("the committed message is not a candidate")
		}
		cpu += rusage.CPU() - start
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
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
