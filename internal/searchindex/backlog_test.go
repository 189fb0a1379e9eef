package searchindex

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gofrs/flock"

	"github.com/openclaw/sessions/internal/search"
)

// Backlog tells from the stamps what an update would read: everything of
// an index never built, nothing of one up to date, the appended bytes of
// a transcript appended to, the whole of one rewritten or new, nothing of
// one gone. It writes nothing.
func TestBacklog(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	w := &world{dir: t.TempDir()}
	var srcs []search.Source
	var total int64
	for i := range 4 {
		writeFile(t, w.path(i), lines(r, 30))
		srcs = append(srcs, search.Source{Path: w.path(i)})
		total += size(t, w.path(i))
	}
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	check := func(what string, sources int, bytes int64) {
		t.Helper()
		b, err := ix.Backlog(srcs)
		if err != nil {
			t.Fatal(err)
		}
		if b.Sources != sources || b.Bytes != bytes || b.Total != total {
			t.Fatalf("%s: %+v, want %d sources, %d bytes of %d", what, b, sources, bytes, total)
		}
	}
	check("never built", 4, total)
	if _, err := os.Stat(filepath.Join(ix.Dir(), "manifest")); err == nil {
		t.Fatal("Backlog wrote a manifest")
	}
	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	check("up to date", 0, 0)

	add := lines(r, 3)
	appendFile(t, srcs[0].Path, add)
	total += int64(len(add))
	check("appended to", 1, int64(len(add)))

	rewritten := lines(r, 10)
	total += int64(len(rewritten)) - size(t, srcs[1].Path)
	tmp := srcs[1].Path + ".tmp"
	writeFile(t, tmp, rewritten)
	if err := os.Rename(tmp, srcs[1].Path); err != nil {
		t.Fatal(err)
	}
	check("appended to and replaced", 2, int64(len(add))+int64(len(rewritten)))

	writeFile(t, w.path(9), lines(r, 5))
	srcs = append(srcs, search.Source{Path: w.path(9)})
	total += size(t, w.path(9))
	check("and a new one", 3, int64(len(add))+int64(len(rewritten))+size(t, w.path(9)))

	total -= size(t, srcs[2].Path)
	if err := os.Remove(srcs[2].Path); err != nil {
		t.Fatal(err)
	}
	check("and one gone", 3, int64(len(add))+int64(len(rewritten))+size(t, w.path(9)))

	if _, err := ix.Update(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	check("up to date again", 0, 0)
}

// Busy tells another process's update under way (the index's lock held)
// without waiting for it, and takes nothing.
func TestBusy(t *testing.T) {
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if busy, err := ix.Busy(); err != nil || busy {
		t.Fatalf("no one holds it: busy %v, %v", busy, err)
	}
	if busy, err := ix.Busy(); err != nil || busy {
		t.Fatalf("Busy kept the lock: busy %v, %v", busy, err)
	}
	fl := flock.New(filepath.Join(ix.Dir(), "lock"))
	if ok, err := fl.TryLock(); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	if busy, err := ix.Busy(); err != nil || !busy {
		t.Fatalf("held: busy %v, %v", busy, err)
	}
	fl.Unlock()
	if busy, err := ix.Busy(); err != nil || busy {
		t.Fatalf("released: busy %v, %v", busy, err)
	}
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// UpdateStamped takes the stamps Backlog took: a transcript whose stamp
// there is the one indexed is not read (nor stat'ed) again, one appended
// to is read, and one changed after the stamps were taken is left to the
// next update, as if the update had run when they were taken. Its
// answers stay the scan's (checkQueries).
func TestUpdateStamped(t *testing.T) {
	w, ix, r := indexedWorld(t, 6)
	var opened []string // the transcripts the update stat'ed or read
	var mu sync.Mutex
	testHookFileChecked = func(path string) { mu.Lock(); opened = append(opened, path); mu.Unlock() }
	defer func() { testHookFileChecked = nil }()

	appendFile(t, w.path(0), `{"type":"message","id":"new1","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"zqxstamped one"}}`+"\n")
	b, err := ix.Backlog(w.srcs)
	if err != nil {
		t.Fatal(err)
	}
	// changed after the stamps were taken
	appendFile(t, w.path(1), `{"type":"message","id":"new2","timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":"zqxstamped two"}}`+"\n")
	st, err := ix.UpdateStamped(context.Background(), w.srcs, b.Stamps)
	if err != nil {
		t.Fatal(err)
	}
	if st.Appended != 1 || st.Unchanged != 4 || len(opened) != 1 || opened[0] != w.path(0) {
		t.Fatalf("update with the backlog's stamps: %s; read %q", st, opened)
	}
	res, err := ix.Candidates(search.Query{Pattern: "zqxstamped"}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sources[SourceID(&w.srcs[0])]) != 1 || len(res.Sources[SourceID(&w.srcs[1])]) != 0 {
		t.Fatalf("candidates: %v", res.Sources)
	}
	opened = nil
	if st, err = ix.Update(context.Background(), w.srcs); err != nil {
		t.Fatal(err)
	}
	if st.Appended != 1 || len(opened) != len(w.srcs) {
		t.Fatalf("the next update (every transcript checked): %s; read %q", st, opened)
	}
	checkQueries(t, r, ix, w.srcs, 20, nil)
}

// indexedWorld is a world of five transcripts of 20 random lines (seeded),
// an index built over them, closed when the test ends, and the random
// source, to go on with.
func indexedWorld(t *testing.T, seed uint64) (*world, *Index, *rand.Rand) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	w := &world{dir: t.TempDir()}
	for i := range 5 {
		writeFile(t, w.path(i), lines(r, 20))
		w.srcs = append(w.srcs, search.Source{Path: w.path(i)})
	}
	ix, err := Open(t.TempDir(), "state")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Update(context.Background(), w.srcs); err != nil {
		t.Fatal(err)
	}
	return w, ix, r
}
