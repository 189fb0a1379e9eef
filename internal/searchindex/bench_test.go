package searchindex

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/openclaw/sessions/internal/testutil/rusage"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/testutil/bigstate"
	"github.com/openclaw/sessions/internal/transcript"
)

// The engine comparison (make bench-search; docs/PERFORMANCE.md, "Search
// index"): on one generated state (bigstate: both eras, about 10,000
// sessions; SESSIONS_BENCH_SESSIONS, SESSIONS_BENCH_BYTES scale it, e.g.
// 3.5G for the size; SESSIONS_BENCH_DIR keeps it between runs),
// this package's trigram index beside SQLite FTS5 with the trigram
// tokenizer, and both beside the scan of internal/search on the same
// sources: build time, peak RSS and size; a rare and a common query,
// candidates and their verification; the catch-up after one appended
// message.

func benchState(b *testing.B) (*bigstate.State, []search.Source) {
	b.Helper()
	spec := bigstate.FromEnv(bigstate.Spec{Sessions: 10000, Bytes: 64 << 20, Seed: 1})
	dir := os.Getenv("SESSIONS_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "sessions-bench-index")
	}
	st := bigstate.Generate(b, filepath.Join(dir, fmt.Sprintf("state-%d-%d", spec.Sessions, spec.Bytes)), spec)
	db, err := sqlitestore.Open(st.DB, sqlitestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	var srcs []search.Source
	for _, f := range st.Files {
		srcs = append(srcs, search.Source{Path: f})
	}
	for _, s := range st.Sessions {
		srcs = append(srcs, search.Source{DB: db, SessionID: s})
	}
	return st, srcs
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// reportCPU reports the CPU time per op since start: on a loaded machine
// steadier than the wall time.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(rusage.CPU()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

func peakRSS(b *testing.B) {
	if n, ok := rusage.PeakRSS(); ok {
		b.ReportMetric(float64(n)/(1<<20), "peak-RSS-MB")
	}
}

// engine is one way of answering a query from an index.
type engine interface {
	build(b *testing.B, srcs []search.Source)
	size() int64
	// candidates: by source, the positions to verify.
	candidates(b *testing.B, q search.Query) map[int][]int64
	close()
}

// trigramEngine is this package.
type trigramEngine struct {
	dir  string
	ix   *Index
	srcs []search.Source
	ids  map[string]int
}

func (e *trigramEngine) build(b *testing.B, srcs []search.Source) {
	e.dir = b.TempDir()
	var err error
	if e.ix, err = Open(e.dir, "bench"); err != nil {
		b.Fatal(err)
	}
	if _, err := e.ix.Update(context.Background(), srcs); err != nil {
		b.Fatal(err)
	}
	e.srcs, e.ids = srcs, map[string]int{}
	for i := range srcs {
		e.ids[SourceID(&srcs[i])] = i
	}
}

func (e *trigramEngine) size() int64 { return dirSize(e.dir) }
func (e *trigramEngine) close()      { e.ix.Close() }

func (e *trigramEngine) candidates(b *testing.B, q search.Query) map[int][]int64 {
	res, err := e.ix.Candidates(q, Filter{})
	if err != nil || res.All {
		b.Fatal(err, res)
	}
	out := map[int][]int64{}
	for id, cs := range res.Sources {
		i := e.ids[id]
		for _, c := range cs {
			out[i] = append(out[i], c.Pos)
		}
	}
	return out
}

// fts5Engine is SQLite FTS5 with the trigram tokenizer (case folded),
// contentless (no copy of the text, as ours keeps none), a table of
// where each message is beside it.
type fts5Engine struct {
	dir string
	db  *sql.DB
}

func (e *fts5Engine) build(b *testing.B, srcs []search.Source) {
	e.dir = b.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(e.dir, "fts.sqlite")+"?_pragma=journal_mode(wal)&_pragma=synchronous(normal)")
	if err != nil {
		b.Fatal(err)
	}
	e.db = db
	for _, s := range []string{
		`CREATE TABLE docs (id INTEGER PRIMARY KEY, src INTEGER, pos INTEGER, role TEXT, ts INTEGER)`,
		`CREATE VIRTUAL TABLE fts USING fts5(text, tokenize='trigram', content='')`,
	} {
		if _, err := db.Exec(s); err != nil {
			b.Fatal(err)
		}
	}
	tx, _ := db.Begin()
	insDoc, _ := tx.Prepare(`INSERT INTO docs (id, src, pos, role, ts) VALUES (?, ?, ?, ?, ?)`)
	insFTS, _ := tx.Prepare(`INSERT INTO fts (rowid, text) VALUES (?, ?)`)
	id := 0
	add := func(i int, pos int64, line []byte) {
		m, st := search.Extract(line, true)
		if st != transcript.StatusMessage {
			return
		}
		id++
		if _, err := insDoc.Exec(id, i, pos, m.Role, m.Timestamp); err != nil {
			b.Fatal(err)
		}
		if _, err := insFTS.Exec(id, m.Text); err != nil {
			b.Fatal(err)
		}
	}
	for i := range srcs {
		if srcs[i].DB != nil {
			err = srcs[i].DB.Events(srcs[i].SessionID, search.DefaultMaxLine, func() {}, func(seq int64, data []byte, st transcript.Status) {
				if st == transcript.StatusMessage {
					add(i, seq, data)
				}
			})
		} else {
			f, ferr := os.Open(srcs[i].Path)
			if ferr != nil {
				b.Fatal(ferr)
			}
			_, err = eachLine(f, 0, search.DefaultMaxLine, func(pos int64, line []byte, _ bool) { add(i, pos, line) }, nil)
			f.Close()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO fts(fts) VALUES ('optimize')`); err != nil {
		b.Fatal(err)
	}
	db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
}

func (e *fts5Engine) size() int64 { return dirSize(e.dir) }
func (e *fts5Engine) close()      { e.db.Close() }

func (e *fts5Engine) candidates(b *testing.B, q search.Query) map[int][]int64 {
	rows, err := e.db.Query(`SELECT d.src, d.pos FROM fts JOIN docs d ON d.id = fts.rowid WHERE fts MATCH ? ORDER BY d.src, d.pos`,
		`"`+strings.ReplaceAll(q.Pattern, `"`, `""`)+`"`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	out := map[int][]int64{}
	for rows.Next() {
		var s int
		var p int64
		rows.Scan(&s, &p)
		out[s] = append(out[s], p)
	}
	return out
}

// verify runs the real match on the candidates: the hits.
func verify(b *testing.B, srcs []search.Source, q search.Query, cands map[int][]int64) int {
	m, err := search.Compile(q)
	if err != nil {
		b.Fatal(err)
	}
	o := &search.Options{Matcher: m}
	n := 0
	for _, err := range Read(srcs, cands, func(_ int, p int64, line []byte) {
		if _, ok, _ := o.Line(line, p); ok {
			n++
		}
	}) {
		b.Fatal(err)
	}
	return n
}

func scanCount(srcs []search.Source, q search.Query) int {
	m, _ := search.Compile(q)
	return search.Run(srcs, &search.Options{Matcher: m}, 1, 0, 0).Total
}

var engines = []struct {
	name string
	new  func() engine
}{
	{"trigram", func() engine { return &trigramEngine{} }},
	{"fts5", func() engine { return &fts5Engine{} }},
}

// BenchmarkBuild builds each engine's index of the whole state: time, size
// beside the text, and the process's peak RSS (run one engine per process
// to read it: -bench 'Build/trigram').
func BenchmarkBuild(b *testing.B) {
	st, srcs := benchState(b)
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			start := rusage.CPU()
			for b.Loop() {
				en := e.new()
				en.build(b, srcs)
				b.ReportMetric(float64(en.size())/float64(st.Bytes), "size/text")
				b.ReportMetric(float64(en.size())/(1<<20), "index-MB")
				en.close()
			}
			reportCPU(b, start)
			b.ReportMetric(float64(st.Bytes)/(1<<20), "text-MB")
			peakRSS(b)
		})
	}
}

// BenchmarkQuery: a rare and a common literal, a CJK and a Cyrillic word,
// answered from each engine's index (candidates, then the real match on
// their lines) and by the scan, side by side.
func BenchmarkQuery(b *testing.B) {
	_, srcs := benchState(b)
	queries := []struct{ name, pattern string }{
		{"rare", bigstate.Rare}, {"common", bigstate.Common}, {"cjk", "再起動"}, {"cyrillic", "перезапуск"},
	}
	built := map[string]engine{}
	for _, e := range engines {
		en := e.new()
		en.build(b, srcs)
		built[e.name] = en
		defer en.close()
	}
	for _, q := range queries {
		sq := search.Query{Pattern: q.pattern}
		want := scanCount(srcs, sq)
		b.Run(q.name+"/scan", func(b *testing.B) {
			start := rusage.CPU()
			for b.Loop() {
				scanCount(srcs, sq)
			}
			reportCPU(b, start)
			b.ReportMetric(float64(want), "hits")
		})
		for _, e := range engines {
			b.Run(q.name+"/"+e.name, func(b *testing.B) {
				var cands int
				start := rusage.CPU()
				for b.Loop() {
					c := built[e.name].candidates(b, sq)
					if got := verify(b, srcs, sq, c); got != want {
						b.Fatalf("%s: %d hits, the scan %d", e.name, got, want)
					}
					cands = 0
					for _, p := range c {
						cands += len(p)
					}
				}
				reportCPU(b, start)
				b.ReportMetric(float64(want), "hits")
				b.ReportMetric(float64(cands), "candidates")
			})
		}
	}
}

// BenchmarkCatchUp: one message appended to one transcript, then what the
// next search does — the backlog (a stat per source), the update that
// indexes it, the rare query — with the update taking the backlog's
// stamps ("stamped", UpdateStamped) and taking its own ("update", a stat
// per source again), and with the stamps the listing took, one batch of
// lstats per directory, in the sources ("listed", as hostread hands them
// over; the batch is timed) — and that in an index opened anew each time
// ("process": as a CLI process, which reads the manifest and its journal
// first) — side by side in one process.
func BenchmarkCatchUp(b *testing.B) {
	_, srcs := benchState(b)
	// A copy of one transcript to append to, the rest as they are.
	dir := b.TempDir()
	data, err := os.ReadFile(srcs[0].Path)
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(dir, "appended.jsonl")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		b.Fatal(err)
	}
	srcs = append([]search.Source{{Path: p}}, srcs[1:]...)
	e := &trigramEngine{}
	e.build(b, srcs)
	defer e.close()
	q := search.Query{Pattern: bigstate.Rare}
	n := 0
	// The batch of lstats alone (what "listed" and "process" time beside
	// the index's work).
	b.Run("listing", func(b *testing.B) {
		start := rusage.CPU()
		for b.Loop() {
			listed(b, srcs)
		}
		reportCPU(b, start)
	})
	for _, name := range []string{"update", "stamped", "listed", "process"} {
		b.Run(name, func(b *testing.B) {
			start := rusage.CPU()
			for b.Loop() {
				n++
				f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
				fmt.Fprintf(f, `{"type":"message","id":"cu%d","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"one more %s"}}`+"\n", n, bigstate.Rare)
				f.Close()
				srcs := srcs
				if name == "listed" || name == "process" {
					srcs = listed(b, srcs)
				}
				ix := e.ix
				if name == "process" {
					// as a CLI process: the index opened anew, its
					// manifest and journal read
					var err error
					if ix, err = Open(e.dir, "bench"); err != nil {
						b.Fatal(err)
					}
				}
				bl, err := ix.Backlog(srcs)
				if err != nil || bl.Sources != 1 {
					b.Fatal(bl, err)
				}
				var st Stats
				if name == "update" {
					st, err = ix.Update(context.Background(), srcs)
				} else {
					st, err = ix.UpdateStamped(context.Background(), srcs, bl.Stamps)
				}
				if err != nil || st.Appended != 1 {
					b.Fatal(st, err)
				}
				if name == "process" {
					res, err := ix.Candidates(q, Filter{})
					if err != nil || len(res.Sources[SourceID(&srcs[0])]) < n {
						b.Fatal("the appended message is not a candidate", err)
					}
					ix.Close()
				} else if len(e.candidates(b, q)[0]) < n {
					b.Fatal("the appended message is not a candidate")
				}
			}
			reportCPU(b, start)
		})
	}
}
