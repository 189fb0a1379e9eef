package cachefile_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/cachefile"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/testutil"
)

const magic = "sessions-test-cache\n"

// TestRoundTrip: what Write wrote Read reads back, an empty payload too
// (empty, not nil: nil is "nothing to use"); the dir is made 0700, the
// file 0600, and no temporary file is left beside it.
func TestRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions", "test")
	path := filepath.Join(dir, "x.cache")
	for _, payload := range [][]byte{[]byte("payload\x00\xff bytes"), {}, bytes.Repeat([]byte{7}, 1<<20)} {
		if err := cachefile.Write(path, magic, payload); err != nil {
			t.Fatal(err)
		}
		got, why := cachefile.Read(path, magic)
		if why != "" || got == nil || !bytes.Equal(got, payload) {
			t.Fatalf("read back %d bytes (nil %v), ignored %q; wrote %d", len(got), got == nil, why, len(payload))
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, cachefile.Encode(magic, bytes.Repeat([]byte{7}, 1<<20))) {
		t.Error("the file is not Encode's bytes")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("beside the cache file: %v", ents)
	}
	if runtime.GOOS == "windows" {
		return // no POSIX modes
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v (%v)", fi.Mode(), err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v (%v)", fi.Mode(), err)
	}
}

// TestEnvelope: the bytes of a file — magic, CRC-32C little-endian, payload.
func TestEnvelope(t *testing.T) {
	got := cachefile.Encode("m\n", []byte("123456789"))
	want := append([]byte("m\n"), 0x83, 0x92, 0x06, 0xe3) // CRC-32C("123456789") = 0xe3069283
	want = append(want, "123456789"...)
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode: %x, want %x", got, want)
	}
}

func TestMissing(t *testing.T) {
	p, why := cachefile.Read(filepath.Join(t.TempDir(), "none", "x.cache"), magic)
	if p != nil || why != "" {
		t.Fatalf("a missing file: %q, ignored %q", p, why)
	}
}

// TestIgnored: a file that is not exactly one of ours is never used, and
// says why.
func TestIgnored(t *testing.T) {
	good := cachefile.Encode(magic, []byte("the payload"))
	flipped := bytes.Clone(good)
	flipped[len(flipped)-3] ^= 0x40
	badSum := bytes.Clone(good)
	badSum[len(magic)] ^= 1
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"empty", cachefile.Foreign, nil},
		{"another cache's", cachefile.Foreign, cachefile.Encode("sessions-other-cache\n", []byte("the payload"))},
		{"a prefix of the magic", cachefile.Foreign, []byte(magic[:5])},
		{"JSON", cachefile.Foreign, []byte(`{"not":"ours"}`)},
		{"the magic alone", cachefile.Truncated, []byte(magic)},
		{"cut in the checksum", cachefile.Truncated, good[:len(magic)+3]},
		{"cut in the payload", cachefile.BadChecksum, good[:len(good)-1]},
		{"a flipped payload byte", cachefile.BadChecksum, flipped},
		{"a flipped checksum byte", cachefile.BadChecksum, badSum},
		{"a byte more", cachefile.BadChecksum, append(bytes.Clone(good), 0)},
	} {
		path := filepath.Join(t.TempDir(), "x.cache")
		if err := os.WriteFile(path, tc.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if p, why := cachefile.Read(path, magic); p != nil || why != tc.want {
			t.Errorf("%s: %q, ignored %q; want %q", tc.name, p, why, tc.want)
		}
		if p, why := cachefile.Decode(tc.data, magic); p != nil || why != tc.want {
			t.Errorf("%s: Decode %q, %q; want %q", tc.name, p, why, tc.want)
		}
	}
}

// TestNotRegular: a directory, a FIFO or a symlink to one in the cache
// file's place is ignored with the refusal's text, never opened (a FIFO
// would block the read for good) — and Write replaces the FIFO and the
// symlink (a rename replaces the name, not what it points to).
func TestNotRegular(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "dir.cache")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	paths := []string{sub}
	fifo := filepath.Join(dir, "fifo.cache")
	if err := testutil.Mkfifo(fifo); errors.Is(err, errors.ErrUnsupported) {
		t.Log(err)
	} else if err != nil {
		t.Fatal(err)
	} else {
		link := filepath.Join(dir, "link.cache")
		if err := os.Symlink(fifo, link); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, fifo, link)
	}
	for _, p := range paths {
		done := make(chan struct{})
		var got []byte
		var why string
		go func() { defer close(done); got, why = cachefile.Read(p, magic) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Read blocked", p)
		}
		if got != nil || why == "" {
			t.Errorf("%s: %q, ignored %q", p, got, why)
		}
		_, err := fsutil.ReadFileRegular(p)
		if err == nil || why != err.Error() {
			t.Errorf("%s: ignored %q, the refusal says %v", p, why, err)
		}
	}
	for _, p := range paths[1:] {
		if err := cachefile.Write(p, magic, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s after Write: %v (%v)", p, fi.Mode(), err)
		}
		if got, why := cachefile.Read(p, magic); why != "" || string(got) != "x" {
			t.Errorf("%s rewritten: %q, ignored %q", p, got, why)
		}
	}
}

// TestUnwritable: a dir that cannot be made, or one the user cannot write
// to, is Write's error (its cache says the cache was not saved), and
// nothing is left behind.
func TestUnwritable(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := cachefile.Write(filepath.Join(file, "sub", "x.cache"), magic, []byte("x")); err == nil {
		t.Error("a cache dir under a file: no error")
	}
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("root (or Windows) writes into a 0500 dir")
	}
	ro := filepath.Join(root, "ro")
	if err := os.Mkdir(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o700) })
	if err := cachefile.Write(filepath.Join(ro, "x.cache"), magic, []byte("x")); err == nil {
		t.Error("a read-only dir: no error")
	}
	if ents, _ := os.ReadDir(ro); len(ents) != 0 {
		t.Errorf("left in the read-only dir: %v", ents)
	}
}
