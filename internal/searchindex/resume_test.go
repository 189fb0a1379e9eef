package searchindex

import (
	"path/filepath"

	"context"
	"errors"
	"github.com/openclaw/sessions/internal/search"
	"math/rand/v2"
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
