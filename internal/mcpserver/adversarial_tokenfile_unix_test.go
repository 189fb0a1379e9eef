//go:build unix

package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/mcpserver"
)

// refusedToken checks that ReadTokenFile refuses path with exit 2 and a
// message holding want, without hanging and without the token.
func refusedToken(t *testing.T, path, want string) {
	t.Helper()
	type res struct {
		tok string
		err error
	}
	done := make(chan res, 1)
	go func() { tok, err := mcpserver.ReadTokenFile(path); done <- res{tok, err} }()
	var r res
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("ReadTokenFile(%s) hangs", path)
	}
	if r.err == nil || apperr.CodeOf(r.err) != apperr.CodeUsage || !strings.Contains(r.err.Error(), want) {
		t.Errorf("ReadTokenFile(%s): %q %v (exit %d), want exit 2 with %q", path, r.tok, r.err, apperr.CodeOf(r.err), want)
	}
	if r.err != nil && strings.Contains(r.err.Error(), "tok-") {
		t.Errorf("the token is in the error: %v", r.err)
	}
}

func writeToken(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("tok-secret-0123456789abcdef012345\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A symbolic link to a good token file is refused, as ssh refuses one
// for a key: whoever can change the link chooses the token.
func TestAdversarialTokenFileSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	writeToken(t, real)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	refusedToken(t, link, "is a symbolic link")
}

// A token file owned by another user is refused even at mode 600: that
// user chooses the token.
func TestAdversarialTokenFileOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	p := filepath.Join(t.TempDir(), "token")
	writeToken(t, p)
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	refusedToken(t, p, "is owned by uid 65534, not by you (uid 0)")
}

// A FIFO in place of the token file is refused at once, not waited on.
func TestAdversarialTokenFileFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "token")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	refusedToken(t, p, "not a regular file")
}

// A token file larger than a token can be is refused, not read whole.
func TestAdversarialTokenFileHuge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", 1<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	refusedToken(t, p, "is larger than 64 KiB")
}

// The file the server reads is its own, regular, private: still read.
func TestAdversarialTokenFileGood(t *testing.T) {
	p := filepath.Join(t.TempDir(), "token")
	writeToken(t, p)
	if tok, err := mcpserver.ReadTokenFile(p); err != nil || tok != "tok-secret-0123456789abcdef012345" {
		t.Fatalf("ReadTokenFile: %q %v", tok, err)
	}
}
