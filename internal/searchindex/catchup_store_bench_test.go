package searchindex

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/testutil/bigstate"
	"github.com/openclaw/sessions/internal/testutil/rusage"
)

// BenchmarkCatchUpStore is BenchmarkCatchUp for a 2026.8+ store: one
// event committed to one session of the bench state's store (5,000
// sessions at its default size), then the backlog, the update with its
// stamps and the rare query, as a long-lived process does them (the
// JSONL transcripts listed, as BenchmarkCatchUp/listed). Every
// commit changes the store's stamp, which every session's record shares.
func BenchmarkCatchUpStore(b *testing.B) {
	st, all := benchState(b)
	// the store copied, so that a writer may commit to it
	dbPath := filepath.Join(b.TempDir(), filepath.Base(st.DB))
	copyFile(b, st.DB, dbPath)
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
	w, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)")
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	session := st.Sessions[0]
	var k int
	for i := range srcs {
		if srcs[i].SessionID == session {
			k = i
		}
	}
	q := search.Query{Pattern: bigstate.Rare}
	seq := 1 << 20
	start := rusage.CPU()
	for b.Loop() {
		seq++
		ev := fmt.Sprintf(`{"type":"message","id":"cs%d","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"one more %s"}}`, seq, bigstate.Rare)
		if _, err := w.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 1795255200000)`, session, seq, ev); err != nil {
			b.Fatal(err)
		}
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
	}
	reportCPU(b, start)
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
