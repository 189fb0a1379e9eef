package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/openclaw/sessions/internal/testutil"
)

// buildBinary builds cmd/sessions into the test's temp dir, with the go
// build flags given (-ldflags, say), skipping without a go command (the
// build cache makes the second build quick). The tests that run the
// binary live here in e2e, and build it with this (or, for the interop
// tests, peertest.BuildSessions): no other package's tests build it but
// as the detached runner (testutil.SessionsBinary); TestTestLayout in
// internal/cli checks it.
func buildBinary(t testing.TB, flags ...string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipping: no `go` command to build the binary")
	}
	bin := filepath.Join(t.TempDir(), "sessions")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	args := append(append([]string{"build", "-o", bin}, flags...), "./cmd/sessions")
	// without cgo, as make build and the releases (a static binary)
	build := exec.Command(goBin, args...)
	build.Dir = testutil.Root(t)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
