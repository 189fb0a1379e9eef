package dirstat_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/openclaw/sessions/internal/dirstat"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/testutil"
)

// StatNames says of each name what os.Lstat says of its path: a regular
// file, a link (never followed), a directory, a FIFO (never opened), and
// nothing for a name that is gone.
func TestStatNamesIsLstat(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	names := []string{"a.jsonl", "d.jsonl", "gone.jsonl"}
	if runtime.GOOS != "windows" {
		if err := os.Symlink(filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "l.jsonl")); err != nil {
			t.Fatal(err)
		}
		if err := testutil.Mkfifo(filepath.Join(dir, "f.jsonl")); err != nil {
			t.Fatal(err)
		}
		names = append(names, "l.jsonl", "f.jsonl")
	}
	got, err := dirstat.StatNames(dir, dirstat.NewNames(names))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		fi, err := os.Lstat(filepath.Join(dir, n))
		if err != nil {
			if got[i].OK {
				t.Errorf("%s: %+v, lstat: %v", n, got[i], err)
			}
			continue
		}
		want := dirstat.Stat{OK: true, Mode: fi.Mode().Type(), Size: fi.Size(), MtimeNano: fi.ModTime().UnixNano()}
		want.Dev, want.Ino, _ = fsutil.DevIno(fi)
		want.CtimeNano = fsutil.StampOf(fi).CTime
		if got[i] != want {
			t.Errorf("%s: %+v, lstat says %+v", n, got[i], want)
		}
	}
	if _, err := dirstat.StatNames(filepath.Join(dir, "none"), dirstat.NewNames(names)); err == nil {
		t.Error("a missing directory: no error")
	}
	if out, err := dirstat.StatNames(filepath.Join(dir, "none"), dirstat.NewNames(nil)); err != nil || len(out) != 0 {
		t.Errorf("no names: %v %v", out, err)
	}
}

// A long batch, shared out among CPUs, still says of each name what
// os.Lstat says of it, at its own index: distinct sizes, names gone
// between names there.
func TestStatNamesLongBatch(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // parts even on one CPU
	dir := t.TempDir()
	var names []string
	for i := range 2100 {
		n := fmt.Sprintf("s%05d.jsonl", i)
		names = append(names, n)
		if i%7 == 3 {
			continue // gone
		}
		if err := os.WriteFile(filepath.Join(dir, n), make([]byte, i), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := dirstat.StatNames(dir, dirstat.NewNames(names))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		fi, err := os.Lstat(filepath.Join(dir, n))
		switch {
		case err != nil && got[i].OK:
			t.Fatalf("%s: %+v, lstat: %v", n, got[i], err)
		case err == nil && (!got[i].OK || got[i].Size != fi.Size() || got[i].MtimeNano != fi.ModTime().UnixNano()):
			t.Fatalf("%s: %+v, lstat: size %d", n, got[i], fi.Size())
		}
	}
}
