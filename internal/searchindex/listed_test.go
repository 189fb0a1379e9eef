package searchindex

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/dirstat"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/search"
)

// listed is srcs as a listing hands them over: each file's lstat taken in
// one batch per directory (search.Source.Stat), as hostread does.
func listed(t testing.TB, srcs []search.Source) []search.Source {
	t.Helper()
	out := make([]search.Source, len(srcs))
	copy(out, srcs)
	byDir := map[string][]int{}
	for i := range out {
		if out[i].DB == nil {
			d := filepath.Dir(out[i].Path)
			byDir[d] = append(byDir[d], i)
		}
	}
	for d, idx := range byDir {
		names := make([]string, len(idx))
		for k, i := range idx {
			names[k] = filepath.Base(out[i].Path)
		}
		st, err := dirstat.StatNames(d, dirstat.NewNames(names))
		if err != nil {
			t.Fatal(err)
		}
		for k, i := range idx {
			out[i].Stat = &st[k]
		}
	}
	return out
}

// The stamp a listing took (search.Source.Stat) is the stamp an update
// compares: the same as the file's own stat.
func TestListedStampIsTheStat(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.jsonl")
	writeFile(t, p, "{}\n")
	src := listed(t, []search.Source{{Path: p}})[0]
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := listedStamp(&src)
	if !ok || got != stampOf(fi) {
		t.Fatalf("listed stamp %+v (%v), the stat's %+v", got, ok, stampOf(fi))
	}
}

// Backlog and UpdateStamped take the stamps the listing took of the
// transcript files (search.Source.Stat) instead of a stat each, and still
// see every change a stat would: an append, a rewrite of the same size
// (its mtime set back), a file gone, one renamed, a new one in the same
// directory. A backlog that finds nothing changed makes the update a
// no-op that neither checks a transcript nor writes, nor moves the
// index's generation.
func TestListedStamps(t *testing.T) {
	w, ix, r := indexedWorld(t, 7)
	var checked []string // the transcripts an update stat'ed or read
	var mu sync.Mutex
	testHookFileChecked = func(path string) { mu.Lock(); checked = append(checked, path); mu.Unlock() }
	defer func() { testHookFileChecked = nil }()
	var stats int // the stats Backlog took of transcript files
	testHookBacklogStat = func(string) { stats++ }
	defer func() { testHookBacklogStat = nil }()

	// step lists the sources, weighs the backlog, updates with its
	// stamps, and checks what was seen and read, then the answers.
	step := func(what string, sources, read int, want func(Stats) bool) {
		t.Helper()
		srcs := listed(t, w.srcs)
		checked, stats = nil, 0
		b, err := ix.Backlog(srcs)
		if err != nil {
			t.Fatal(err)
		}
		if b.Sources != sources || stats != 0 {
			t.Fatalf("%s: backlog of %d source(s) (want %d), %d stat(s) taken", what, b.Sources, sources, stats)
		}
		st, err := ix.UpdateStamped(context.Background(), srcs, b.Stamps)
		if err != nil {
			t.Fatal(err)
		}
		if len(checked) != read || !want(st) {
			t.Fatalf("%s: %s; checked %q", what, st, checked)
		}
		checkQueries(t, r, ix, w.srcs, 10, nil)
	}
	manifest := func() (fsutil.Stamp, fsutil.Stamp) {
		fi, err := os.Stat(filepath.Join(ix.Dir(), "manifest"))
		if err != nil {
			t.Fatal(err)
		}
		var j fsutil.Stamp
		if ji, err := os.Stat(filepath.Join(ix.Dir(), "journal")); err == nil {
			j = fsutil.StampOf(ji)
		}
		return fsutil.StampOf(fi), j
	}

	m0, j0 := manifest()
	gen := ix.gen
	step("nothing changed", 0, 0, func(st Stats) bool { return st.Unchanged == 5 && st.Segments > 0 })
	if m, j := manifest(); !m.Equal(m0) || !j.Equal(j0) || ix.gen != gen {
		t.Fatal("an update that found nothing changed wrote the index or moved its generation")
	}

	appendFile(t, w.path(0), lines(r, 2))
	step("appended to", 1, 1, func(st Stats) bool { return st.Appended == 1 && st.Unchanged == 4 })

	// the same size, the same mtime: its ctime (and content) moved
	fi, err := os.Stat(w.path(1))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(w.path(1))
	if err != nil {
		t.Fatal(err)
	}
	same := lines(r, 40)[:len(data)-1] + "\n"
	time.Sleep(10 * time.Millisecond) // a later ctime than the indexed one, on any clock tick
	writeFile(t, w.path(1), same)
	if err := os.Chtimes(w.path(1), fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	step("rewritten in place, same size and mtime", 1, 1, func(st Stats) bool { return st.Whole == 1 && st.Unchanged == 4 })

	if err := os.Remove(w.path(2)); err != nil {
		t.Fatal(err)
	}
	// a listing that raced the removal: the update finds it gone itself
	step("gone, still listed", 0, 1, func(st Stats) bool { return st.Unchanged == 4 })
	w.srcs = append(w.srcs[:2], w.srcs[3:]...)
	step("gone, no longer listed", 0, 0, func(st Stats) bool { return st.Removed == 0 && st.Unchanged == 4 })

	if err := os.Rename(w.path(3), w.path(7)); err != nil {
		t.Fatal(err)
	}
	w.srcs[2] = search.Source{Path: w.path(7)}
	step("renamed", 1, 1, func(st Stats) bool { return st.Removed == 1 && st.Whole == 1 && st.Unchanged == 3 })

	writeFile(t, w.path(8), lines(r, 5))
	w.srcs = append(w.srcs, search.Source{Path: w.path(8)})
	step("a new file", 1, 1, func(st Stats) bool { return st.Whole == 1 && st.Unchanged == 4 })

	m0, j0 = manifest()
	gen = ix.gen
	step("nothing changed again", 0, 0, func(st Stats) bool { return st.Unchanged == 5 })
	if m, j := manifest(); !m.Equal(m0) || !j.Equal(j0) || ix.gen != gen {
		t.Fatal("an update that found nothing changed wrote the index or moved its generation")
	}
}
