package searchindex

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// sameOnDisk checks that an Index opened anew on ix's directory (the
// manifest and its journal read back) holds the manifest ix holds.
func sameOnDisk(t testing.TB, ix *Index) {
	t.Helper()
	fresh := &Index{dir: ix.dir, segs: map[uint32]*segment{}, maps: map[uint32][]byte{}}
	defer fresh.Close()
	fresh.mu.Lock()
	err := fresh.load()
	fresh.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	a, b := ix.man, fresh.man
	if a.gen != b.gen || a.nextSrc != b.nextSrc || a.nextSeg != b.nextSeg || !slices.Equal(a.segs, b.segs) || !slices.Equal(a.srcs, b.srcs) {
		t.Fatalf("on disk %+v\nin memory %+v", b, a)
	}
}

// TestJournal: catch-ups append records to the journal (a new manifest
// only after a merge or when the journal has grown), and the manifest with
// its journal read back is the index the writer holds — also with a torn
// record at its end, which the next writer cuts off.
func TestJournal(t *testing.T) {
	w := &world{dir: t.TempDir()}
	r := rand.New(rand.NewPCG(5, 5))
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.segText, ix.maxSegs = 1<<20, 6
	records := 0
	for step := range 40 {
		w.edit(t, r)
		before, _ := os.Stat(filepath.Join(ix.dir, "manifest"))
		st, err := ix.Update(context.Background(), w.srcs)
		if err != nil {
			t.Fatal(err)
		}
		after, _ := os.Stat(filepath.Join(ix.dir, "manifest"))
		if before != nil && !st.Merged && !os.SameFile(before, after) {
			t.Fatalf("step %d: a catch-up (%v) rewrote the manifest", step, st)
		}
		if ix.jEnd > 0 {
			records++
		}
		sameOnDisk(t, ix)
		if step%5 == 4 { // a writer that died mid-append
			f, err := os.OpenFile(filepath.Join(ix.dir, "journal"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte{40, 0, 0, 0, 1, 2, 3})
			f.Close()
			sameOnDisk(t, ix)
		}
		checkQueries(t, r, ix, w.srcs, 4, nil)
	}
	if records == 0 {
		t.Fatal("no update was journaled")
	}
}
