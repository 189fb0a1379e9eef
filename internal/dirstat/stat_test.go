package dirstat_test

import (
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
