package dirstat_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/openclaw/sessions/internal/dirstat"
	"github.com/openclaw/sessions/internal/testutil"
)

// listWorld is a directory with one of each kind of name a sessions dir
// may hold: regular files (many, so that a listing takes more than one
// read of the kernel's), a directory named like a transcript, links to a
// file, to a directory and to nothing, and a FIFO (never opened).
func listWorld(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("cd613e30-d8f1-4adf-91b7-%012d.jsonl", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "d.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		for name, target := range map[string]string{"l.jsonl": "cd613e30-d8f1-4adf-91b7-000000000000.jsonl", "ld.jsonl": "d.jsonl", "dangling.jsonl": "none"} {
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		if err := testutil.Mkfifo(filepath.Join(dir, "f.jsonl")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// want is what os.ReadDir says of dir: every name with its type bits.
func want(t *testing.T, dir string) map[string]fs.FileMode {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]fs.FileMode{}
	for _, e := range ents {
		m[e.Name()] = e.Type()
	}
	return m
}

func sameTypes(t *testing.T, got, want map[string]fs.FileMode) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d names, os.ReadDir has %d", len(got), len(want))
	}
	for name, m := range want {
		if g, ok := got[name]; !ok || g != m {
			t.Errorf("%s: %v (listed %v), os.ReadDir says %v", name, g, ok, m)
		}
	}
}

// ListTypes names every entry of a directory (never "." or "..") with the
// type bits os.ReadDir gives it: a link is a link, whatever it points to.
func TestListTypesIsReadDir(t *testing.T) {
	dir := listWorld(t, 3000) // ~190 KB of records: several reads
	got, err := dirstat.ListTypes(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameTypes(t, got, want(t, dir))
	if got["d.jsonl"] != fs.ModeDir || got["cd613e30-d8f1-4adf-91b7-000000000007.jsonl"] != 0 {
		t.Errorf("types: %v %v", got["d.jsonl"], got["cd613e30-d8f1-4adf-91b7-000000000007.jsonl"])
	}
	if runtime.GOOS != "windows" && (got["l.jsonl"] != fs.ModeSymlink || got["ld.jsonl"] != fs.ModeSymlink || got["dangling.jsonl"] != fs.ModeSymlink || got["f.jsonl"] != fs.ModeNamedPipe) {
		t.Errorf("links and FIFO: %v", got)
	}
	empty := t.TempDir()
	if got, err := dirstat.ListTypes(empty); err != nil || len(got) != 0 {
		t.Errorf("an empty directory: %v %v", got, err)
	}
}

// A file system that gives no type in its listing (DT_UNKNOWN: some
// network and FUSE file systems) has each name lstat'ed on the listing's
// handle instead: the same answers.
func TestListTypesUnknownTypes(t *testing.T) {
	if !dirstat.RawListing {
		t.Skip("os.File.ReadDir lists here")
	}
	dir := listWorld(t, 50)
	defer dirstat.ForceUnknownTypes(true)()
	got, err := dirstat.ListTypes(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameTypes(t, got, want(t, dir))
}

// A name that vanished between the listing and the lstat its unknown type
// asks for is left out, as os.ReadDir leaves it out.
func TestListTypesVanishedName(t *testing.T) {
	if !dirstat.RawListing {
		t.Skip("os.File.ReadDir lists here")
	}
	dir := listWorld(t, 20)
	gone := filepath.Join(dir, "cd613e30-d8f1-4adf-91b7-000000000003.jsonl")
	defer dirstat.ForceUnknownTypes(true)()
	defer dirstat.BeforeTypeLookup(func() { os.Remove(gone) })()
	got, err := dirstat.ListTypes(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got[filepath.Base(gone)]; ok {
		t.Errorf("%s listed after it was removed", filepath.Base(gone))
	}
	sameTypes(t, got, want(t, dir))
}

// A directory that is missing, not a directory or unreadable is an error
// (the caller looks names up one by one instead).
func TestListTypesErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := dirstat.ListTypes(filepath.Join(dir, "none")); err == nil {
		t.Error("a missing directory: no error")
	}
	f := filepath.Join(dir, "file")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := dirstat.ListTypes(f); err == nil {
		t.Error("a file: no error")
	}
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		return // root reads any directory
	}
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o300); err != nil {
		t.Fatal(err)
	}
	if _, err := dirstat.ListTypes(locked); err == nil {
		t.Error("an unreadable directory: no error")
	}
}

// BenchmarkListTypes10k: a 10,000-transcript sessions dir listed with the
// types of its names, by ListTypes and by os.File.ReadDir into the same
// map (what store.Resolver did before).
func BenchmarkListTypes10k(b *testing.B) {
	dir := listWorld(b, 10_000)
	b.Run("ListTypes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if m, err := dirstat.ListTypes(dir); err != nil || len(m) < 10_000 {
				b.Fatal(len(m), err)
			}
		}
	})
	b.Run("ReadDir", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f, err := os.Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			ents, err := f.ReadDir(-1)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			m := make(map[string]fs.FileMode, len(ents))
			for _, e := range ents {
				m[e.Name()] = e.Type()
			}
		}
	})
	b.Run("Lstat", func(b *testing.B) { // one lstat by path per name, for scale
		names := make([]string, 0, 10_000)
		for i := range 10_000 {
			names = append(names, filepath.Join(dir, fmt.Sprintf("cd613e30-d8f1-4adf-91b7-%012d.jsonl", i)))
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range names {
				if _, err := os.Lstat(p); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
