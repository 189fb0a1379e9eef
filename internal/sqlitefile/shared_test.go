package sqlitefile

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// mappingsOf returns the resident kB of each mapping of path in this
// process (/proc/self/smaps), in address order.
func mappingsOf(t *testing.T, path string) []int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	defer f.Close()
	var out []int
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if fs := strings.Fields(l); len(fs) > 0 && strings.Contains(fs[0], "-") && len(fs) >= 5 {
			in = len(fs) >= 6 && fs[len(fs)-1] == path
			continue
		}
		if in && strings.HasPrefix(l, "Rss:") {
			kb, _ := strconv.Atoi(strings.Fields(l)[1])
			out = append(out, kb)
		}
	}
	return out
}

// TestSharedMainMapping: snapshots of an unchanged main file share one
// mapping, which stays while the file does; once the file changes, the
// next snapshot maps it anew and the old mapping goes with its last
// snapshot; and the pages the closed snapshots read are given back after
// releaseAfter of them.
func TestSharedMainMapping(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/smaps")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "db.sqlite")
	w := generate(t, path, 21, 1024)
	mustExec(t, w, `PRAGMA wal_checkpoint(TRUNCATE)`)
	main, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer main.Close()
	read := func(s *Snapshot) {
		t.Helper()
		root, _, _, err := s.Table("t")
		if err != nil {
			t.Fatal(err)
		}
		leaves, err := s.Leaves(root)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ScanLeaves(leaves, []int{2}, NewScratch(), func(int64, []Value) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	defer func(was int64) { releaseAfter = was }(releaseAfter)
	releaseAfter = 1 << 40

	s1, err := Open(path, main)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path, main)
	if err != nil {
		t.Fatal(err)
	}
	if &s1.db[0] != &s2.db[0] {
		t.Fatal("two snapshots of the unchanged file mapped it twice")
	}
	read(s1)
	s1.Close()
	s2.Close()
	if m := mappingsOf(t, path); len(m) != 1 || m[0] == 0 {
		t.Fatalf("after the snapshots closed: mappings (resident kB) %v, want the one, resident", m)
	}

	// The pages read are given back once releaseAfter were read.
	releaseAfter = 2
	s3, err := Open(path, main)
	if err != nil {
		t.Fatal(err)
	}
	read(s3)
	if m := mappingsOf(t, path); len(m) != 1 || m[0] == 0 {
		t.Fatalf("while a snapshot reads: %v", m)
	}
	s3.Close()
	if m := mappingsOf(t, path); len(m) != 1 || m[0] != 0 {
		t.Fatalf("after %d pages read: mappings (resident kB) %v, want one, none resident", releaseAfter, m)
	}
	releaseAfter = 1 << 40

	// The file changes: a new mapping; the old one goes with its last
	// snapshot.
	s4, err := Open(path, main)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, w, `INSERT INTO t (k, body) VALUES ('new', 'row')`)
	mustExec(t, w, `PRAGMA wal_checkpoint(TRUNCATE)`)
	s5, err := Open(path, main)
	if err != nil {
		t.Fatal(err)
	}
	if &s4.db[0] == &s5.db[0] {
		t.Fatal("the changed file's snapshot uses the old mapping")
	}
	if m := mappingsOf(t, path); len(m) != 2 {
		t.Fatalf("old and new snapshot open: %d mappings, want 2", len(m))
	}
	s4.Close()
	if m := mappingsOf(t, path); len(m) != 1 {
		t.Fatalf("the old snapshot closed: %d mappings, want 1", len(m))
	}
	got, err := direct(t, path, "t", []int{0, 1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "through the new mapping", got, oracle(t, w, "t", testCols))
	s5.Close()
}

// TestLatest: a snapshot is Latest until a frame is written after it — a
// commit, or frames of a transaction not committed yet — while still
// Unchanged; a checkpoint that truncates the -wal ends both.
func TestLatest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.sqlite")
	w := generate(t, path, 31, 1024) // frames left in the -wal
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Latest() || !s.Unchanged() {
		t.Fatal("a fresh snapshot is not Latest")
	}
	mustExec(t, w, `INSERT INTO t (k, body) VALUES ('after', 'the snapshot')`)
	if s.Latest() || !s.Unchanged() {
		t.Fatalf("after a commit: Latest %v (want false), Unchanged %v (want true)", s.Latest(), s.Unchanged())
	}
	mustExec(t, w, `PRAGMA wal_checkpoint(TRUNCATE)`)
	if s.Latest() || s.Unchanged() {
		t.Fatal("after a truncating checkpoint the snapshot is still taken for current")
	}

	// No -wal at the snapshot: one created after it ends Latest.
	s2, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if !s2.Latest() {
		t.Fatal("a snapshot of a checkpointed database is not Latest")
	}
	mustExec(t, w, `INSERT INTO t (k, body) VALUES ('later', 'still')`)
	if s2.Latest() {
		t.Fatal("frames written after the snapshot: still Latest")
	}
}
