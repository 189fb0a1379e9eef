package fsutil

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A stamp changes when the file is written or replaced, and not when it is
// only read again; two paths to one file have one device and inode.
func TestStampAndDevIno(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	stamp := func() Stamp {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return StampOf(fi)
	}
	if err := os.WriteFile(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := stamp()
	if !a.Equal(stamp()) {
		t.Fatal("the stamp of an unchanged file changed")
	}
	if err := os.WriteFile(p, []byte("one more"), 0o600); err != nil {
		t.Fatal(err)
	}
	if a.Equal(stamp()) {
		t.Fatal("a write that grew the file kept its stamp")
	}
	// Same size, same mtime: only the inode (where there is one) tells the
	// replacement apart.
	b := stamp()
	q := filepath.Join(dir, "g")
	if err := os.WriteFile(q, []byte("one mor!"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(q, time.Time{}, b.MTime); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(q, p); err != nil {
		t.Fatal(err)
	}
	c := stamp()
	if b.Ino != 0 && b.Equal(c) {
		t.Fatalf("a replacement kept the stamp %+v", c)
	}
	if b.Ino == 0 && !b.Equal(c) {
		t.Fatalf("without inodes, same size and mtime differ: %+v %+v", b, c)
	}

	l := filepath.Join(dir, "link")
	if err := os.Link(p, l); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	fp, _ := os.Stat(p)
	fl, _ := os.Stat(l)
	d1, i1, ok1 := DevIno(fp)
	d2, i2, ok2 := DevIno(fl)
	if ok1 != ok2 || d1 != d2 || i1 != i2 {
		t.Fatalf("two links to one file: %d/%d/%v and %d/%d/%v", d1, i1, ok1, d2, i2, ok2)
	}
}
