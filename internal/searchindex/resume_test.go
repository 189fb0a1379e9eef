package searchindex

import (
	"path/filepath"

	"context"
	"errors"
	"github.com/openclaw/sessions/internal/search"
	"math/rand/v2"
	"os"
	"testing"
)

// An update interrupted (its context cancelled: Ctrl-C, SIGTERM, a
// search's deadline) keeps the sources it finished: the next update reads
// only the others, and the index answers as the scan does. Progress is
// told the sources' bytes, ending at their total.
func TestInterruptedBuildResumes(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(4, 4))
	var srcs []search.Source
	w := &world{dir: dir}
	for i := range 8 {
		writeFile(t, w.path(i), lines(r, 40))
		srcs = append(srcs, search.Source{Path: w.path(i)})
	}
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.segText = 2000 // several segments per build

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []Progress
	_, err = ix.Update(WithProgress(ctx, func(p Progress) {
		seen = append(seen, p)
		if p.SourcesDone == 3 {
			cancel()
		}
	}), srcs)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted update: %v", err)
	}
	if len(seen) != 4 || seen[0].SourcesDone != 0 || seen[0].Sources != 8 || seen[0].Bytes == 0 || seen[3].BytesDone == 0 {
		t.Fatalf("progress: %+v", seen)
	}
	// What it finished answers already (the rest is not indexed yet).
	checkQueries(t, rand.New(rand.NewPCG(9, 9)), ix, srcs[:3], 30, nil)

	// A process that opens it afresh continues where it stopped.
	ix2, err := Open(filepathDir(ix), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	var last Progress
	st, err := ix2.Update(WithProgress(context.Background(), func(p Progress) { last = p }), srcs)
	if err != nil {
		t.Fatal(err)
	}
	if st.Unchanged != 3 || st.Whole != 5 {
		t.Fatalf("resumed: %v (want the 3 finished sources unchanged, 5 indexed)", st)
	}
	if last.SourcesDone != 8 || last.BytesDone != last.Bytes || last.Bytes != seen[0].Bytes {
		t.Fatalf("progress at the end: %+v (total %d)", last, seen[0].Bytes)
	}
	checkQueries(t, rand.New(rand.NewPCG(9, 9)), ix2, srcs, 30, nil)
	// And the first handle answers the same.
	checkQueries(t, rand.New(rand.NewPCG(9, 9)), ix, srcs, 30, nil)

	// A catch-up interrupted keeps the old records of the sources it did
	// not reach: the next one reads only their appended lines.
	for i := range srcs {
		appendFile(t, srcs[i].Path, lines(r, 5))
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, err = ix2.Update(WithProgress(ctx, func(p Progress) {
		if p.SourcesDone == 3 {
			cancel()
		}
	}), srcs)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted catch-up: %v", err)
	}
	if st, err = ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	if st.Unchanged != 3 || st.Appended != 5 || st.Whole != 0 {
		t.Fatalf("after an interrupted catch-up: %v (want 3 unchanged, 5 appended)", st)
	}
	checkQueries(t, rand.New(rand.NewPCG(9, 9)), ix, srcs, 30, nil)
}

// filepathDir is the cache dir ix was opened in.
func filepathDir(ix *Index) string { return filepath.Dir(filepath.Dir(ix.Dir())) }

// One transcript too big to index within one update's time (a search's
// wait) still makes progress: an update interrupted inside it keeps the
// complete lines it indexed, recorded as if the file ended there, and the
// next update reads only the rest, as appended lines. A prefix indexed
// that way answers as the scan of those lines does, and the file edited
// under the prefix is indexed whole again (the prefix check stays exact).
func TestInterruptedBuildResumesInsideASource(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(6, 6))
	w := &world{dir: dir}
	writeFile(t, w.path(0), lines(r, 400))
	srcs := []search.Source{{Path: w.path(0)}}
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.segText = 2000   // a segment written while the source is read
	ix.pieceText = 4000 // the source read in pieces of complete lines

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	testHookSegWritten = cancel
	_, err = ix.Update(ctx, srcs)
	testHookSegWritten = nil
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted update: %v", err)
	}
	ix.mu.Lock()
	if err := ix.load(); err != nil {
		t.Fatal(err)
	}
	if len(ix.man.srcs) != 1 {
		t.Fatalf("the interrupted source is not kept: %d sources", len(ix.man.srcs))
	}
	to := ix.man.srcs[0].to
	ix.mu.Unlock()
	fi, _ := os.Stat(w.path(0))
	if to <= 0 || to >= fi.Size() {
		t.Fatalf("indexed up to %d of %d bytes: want a prefix", to, fi.Size())
	}
	// The prefix answers as the scan of those lines.
	data, _ := os.ReadFile(w.path(0))
	prefix := filepath.Join(t.TempDir(), "prefix.jsonl")
	writeFile(t, prefix, string(data[:to]))
	checkPrefix(t, ix, search.Source{Path: w.path(0)}, search.Source{Path: prefix})

	// The next update reads the rest as appended lines.
	st, err := ix.Update(context.Background(), srcs)
	if err != nil {
		t.Fatal(err)
	}
	if st.Appended != 1 || st.Whole != 0 {
		t.Fatalf("resumed: %v (want the source's rest appended)", st)
	}
	checkQueries(t, rand.New(rand.NewPCG(9, 9)), ix, srcs, 40, nil)

	// Interrupted again, then the prefix rewritten: indexed whole.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	writeFile(t, w.path(0)+".new", lines(r, 300))
	os.Rename(w.path(0)+".new", w.path(0))
	testHookSegWritten = cancel
	_, err = ix.Update(ctx, srcs)
	testHookSegWritten = nil
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted update: %v", err)
	}
	f, err := os.OpenFile(w.path(0), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte(`{"type":"message","id":"x","message":{"role":"user","content":"rewritten in place"}}`+"\n"), 0)
	f.Close()
	if st, err = ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	if st.Whole != 1 {
		t.Fatalf("a prefix edited in place: %v (want indexed whole)", st)
	}
	checkQueries(t, rand.New(rand.NewPCG(9, 9)), ix, srcs, 40, nil)
}

// checkPrefix checks that ix's answers for src are the scan's of prefix
// (a copy of the lines ix indexed).
func checkPrefix(t *testing.T, ix *Index, src, prefix search.Source) {
	t.Helper()
	_, msgs, _ := search.Messages(&prefix, true, 0)
	if len(msgs) == 0 {
		t.Fatal("no message in the prefix")
	}
	for _, m := range msgs[:min(len(msgs), 20)] {
		word := string([]rune(m.Text)[:min(len([]rune(m.Text)), 8)])
		if len(appendFold(nil, word)) < 3 {
			continue
		}
		q := search.Query{Pattern: word}
		want := scanHits(t, []search.Source{prefix}, q, Filter{}, nil)
		got, all := indexHits(t, ix, []search.Source{src}, q, Filter{}, nil)
		if all || len(got) != len(want) {
			t.Fatalf("query %q: index %d hits, the prefix's scan %d", word, len(got), len(want))
		}
	}
}
