package fsutil_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/testutil"
)

// within runs fn and fails the test if it has not returned after bound: an
// open that blocks on a FIFO never returns.
func within(t *testing.T, bound time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(bound):
		t.Fatalf("blocked for %v (an open of a FIFO waiting for a writer)", bound)
	}
}

func TestOpenRegularRefusesFIFOWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := testutil.Mkfifo(fifo); errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	} else if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link} {
		for name, open := range map[string]func() error{
			"OpenRegular":     func() error { f, err := fsutil.OpenRegular(p); closeIf(f); return err },
			"ReadFileRegular": func() error { _, err := fsutil.ReadFileRegular(p); return err },
			"CheckRegular":    func() error { return fsutil.CheckRegular(p) },
			"OpenFileRegular": func() error {
				f, err := fsutil.OpenFileRegular(p, os.O_WRONLY|os.O_APPEND, 0o600)
				closeIf(f)
				return err
			},
			"ReadDir": func() error { _, err := fsutil.ReadDir(p); return err },
		} {
			var err error
			within(t, 10*time.Second, func() { err = open() })
			if err == nil {
				t.Errorf("%s(%s): opened a FIFO", name, p)
				continue
			}
			if name == "ReadDir" || name == "OpenFileRegular" && !errors.Is(err, fsutil.ErrNotRegular) {
				continue // ENOTDIR; ENXIO (no reader): refused by the open itself
			}
			if !errors.Is(err, fsutil.ErrNotRegular) || apperr.CodeOf(err) != apperr.CodeState {
				t.Errorf("%s(%s) = %v (exit %d), want not a regular file, exit 10", name, p, err, apperr.CodeOf(err))
			}
			if m, ok := fsutil.NotRegularMode(err); name != "OpenFileRegular" && (!ok || m&os.ModeNamedPipe == 0) {
				t.Errorf("%s(%s): mode %v %v, want a named pipe", name, p, m, ok)
			}
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO changed: %v %v", fi, err)
	}
}

func TestOpenRegularReadsFilesAndRefusesDirectories(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := fsutil.ReadFileRegular(p)
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("ReadFileRegular = %q, %v", got, err)
	}
	// the descriptor handed back is blocking again: a plain read works
	f, err := fsutil.OpenRegular(p)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := f.Read(buf); err != nil || string(buf[:n]) != "hello\n" {
		t.Fatalf("read = %q, %v", buf[:n], err)
	}
	f.Close()
	if _, err := fsutil.ReadFileRegular(dir); !errors.Is(err, fsutil.ErrNotRegular) {
		t.Errorf("a directory: %v, want not a regular file", err)
	}
	if _, err := fsutil.ReadFileRegular(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want not exist", err)
	}
	if err := fsutil.CheckRegularIfExists(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("CheckRegularIfExists(missing) = %v", err)
	}
	ents, err := fsutil.ReadDir(dir)
	if err != nil || len(ents) != 1 || ents[0].Name() != "f" {
		t.Errorf("ReadDir = %v, %v", ents, err)
	}
	if _, err := fsutil.ReadDir(p); err == nil {
		t.Error("ReadDir of a file: no error")
	}
}

func closeIf(f *os.File) {
	if f != nil {
		f.Close()
	}
}
