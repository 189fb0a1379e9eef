package searchindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/openclaw/sessions/internal/search"
)

// catchUpCost is what one catch-up — a line appended to one of n
// transcripts, then Backlog and UpdateStamped with the stamps a listing
// took of the others — allocates, averaged over runs catch-ups (merges
// of the small segments among them).
func catchUpCost(t *testing.T, n, runs int) (allocs, bytes float64) {
	t.Helper()
	state := t.TempDir()
	r := rand.New(rand.NewPCG(uint64(n), 7))
	srcs := make([]search.Source, n)
	for i := range srcs {
		srcs[i].Path = filepath.Join(state, fmt.Sprintf("t%05d.jsonl", i))
		writeFile(t, srcs[i].Path, lines(r, 2))
	}
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.maxSegs = 4
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	srcs = listed(t, srcs)
	srcs[0].Stat = nil // the one appended to is stat'ed by Backlog
	catchUp := func() {
		appendFile(t, srcs[0].Path, lines(r, 1))
		b, err := ix.Backlog(srcs)
		if err != nil || b.Sources != 1 {
			t.Fatal(b, err)
		}
		st, err := ix.UpdateStamped(context.Background(), srcs, b.Stamps)
		if err != nil || st.Appended != 1 || st.Unchanged != n-1 {
			t.Fatal(st, err)
		}
	}
	catchUp() // the first takes what a first catch-up takes once
	// No collection while measuring: it would empty the pools of
	// buffers, whose making again is not the catch-up's.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		catchUp()
	}
	runtime.ReadMemStats(&after)
	sameOnDisk(t, ix)
	return float64(after.Mallocs-before.Mallocs) / float64(runs), float64(after.TotalAlloc-before.TotalAlloc) / float64(runs)
}

// TestCatchUpCostsWhatChanged: a catch-up after one appended line
// allocates per source it read, not per source of the state: ten times
// the transcripts cost (nearly) no more allocations, and a few bytes per
// source at most (what is O(sources) is a pass of comparisons, and a
// merge's copy of the records now and then).
func TestCatchUpCostsWhatChanged(t *testing.T) {
	const runs = 16
	a1, b1 := catchUpCost(t, 300, runs)
	a2, b2 := catchUpCost(t, 3000, runs)
	t.Logf("per catch-up: 300 sources %.0f allocs %.0f B, 3000 sources %.0f allocs %.0f B", a1, b1, a2, b2)
	if a2-a1 > 100 {
		t.Errorf("2700 more sources cost %.0f more allocations per catch-up", a2-a1)
	}
	if per := (b2 - b1) / 2700; per > 40 && !raceBuild {
		t.Errorf("each source costs %.1f bytes per catch-up", per)
	}
}

// BenchmarkLoadJournal: what a process that opens the index pays to read
// a manifest of 10,000 sources and a journal of 1,000 catch-ups (each one
// source's record changed): the manifest decoded, each record applied.
func BenchmarkLoadJournal(b *testing.B) {
	dir := b.TempDir()
	m := &manifest{uid: 1, nextSrc: 10000}
	for i := range 10000 {
		m.srcs = append(m.srcs, srcRec{num: uint32(i), id: fmt.Sprintf("file\x00/state/agents/main/sessions/%08d-0000-4000-8000-000000000000.jsonl", i),
			stamp: stamp{Size: 1000, MTime: 1, Ino: uint64(i)}, to: 1000})
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest"), m.encode(), 0o600); err != nil {
		b.Fatal(err)
	}
	var end int64
	for k := range 1000 {
		r := m.srcs[(k*7919)%len(m.srcs)]
		r.stamp.Size += int64(k)
		body := m.appendBody(nil, []srcRec{r}, nil, true)
		var err error
		if end, err = appendJournal(dir, m.gen, end, body); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		ix := &Index{dir: dir, segs: map[uint32]*segment{}, maps: map[uint32][]byte{}}
		if err := ix.load(); err != nil || len(ix.man.srcs) != 10000 || ix.jEnd != end {
			b.Fatal(err)
		}
	}
}

// TestPlanOfMakesNoIDOfAnIndexedSource: an index opened anew (a CLI
// process) finds its sources' records without a string made per source.
func TestPlanOfMakesNoIDOfAnIndexedSource(t *testing.T) {
	state := t.TempDir()
	r := rand.New(rand.NewPCG(3, 3))
	srcs := make([]search.Source, 200)
	for i := range srcs {
		// listed in another order than their ids'
		srcs[i].Path = filepath.Join(state, fmt.Sprintf("s%03d-transcript-of-a-session.jsonl", (i*37)%len(srcs)))
		writeFile(t, srcs[i].Path, lines(r, 1))
	}
	ix := builtIndex(t, t.TempDir(), srcs)
	srcs = append(srcs, srcs[7]) // a duplicate, passed over
	var p sourcePlan
	allocs := testing.AllocsPerRun(5, func() { p = ix.planOf(srcs) })
	if allocs > 8 {
		t.Errorf("%.0f allocations for %d sources", allocs, len(srcs))
	}
	order, ids := uniqueSourceIDs(srcs)
	if !slices.Equal(p.order, order) || !slices.Equal(p.ids, ids) || p.kept != len(ids) {
		t.Fatalf("plan %v %q (%d kept), want %v %q", p.order, p.ids, p.kept, order, ids)
	}
	for k, j := range p.at {
		if ix.man.srcs[j].id != ids[k] {
			t.Fatalf("source %d: record %d is %q", k, j, ix.man.srcs[j].id)
		}
	}
}
