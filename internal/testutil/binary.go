package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	// startEnv is the environment the test binary started with: the build
	// of the sessions binary uses the machine's module and build caches,
	// not the isolated HOME a test may have set by then.
	startEnv = os.Environ()
	binOnce  sync.Once
	binPath  string
	binErr   error
	binDir   string
)

// SessionsBinary builds cmd/sessions once per test binary (for the
// detached runners that local sends and spawns start: point
// $SESSIONS_RUNNER_EXE at it) and returns its path. Call RemoveBinary from
// TestMain once the tests ran.
func SessionsBinary(tb testing.TB) string {
	tb.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "sessions-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "sessions")
		cmd := exec.Command("go", "build", "-o", binPath, "github.com/openclaw/sessions/cmd/sessions")
		cmd.Dir = Root(tb)
		cmd.Env = startEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		tb.Fatal(binErr)
	}
	return binPath
}

// RemoveBinary removes what SessionsBinary built, if anything.
func RemoveBinary() {
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
}

// EngineScript is an exec engine: "pong: MESSAGE" for a message,
// ANNOUNCE_SKIP for the announce step. With $ENGINE_TEST_GATE set it first
// waits for that file to exist (a turn that takes as long as a test wants).
const EngineScript = `req=$(cat)
if [ -n "$ENGINE_TEST_GATE" ]; then while [ ! -e "$ENGINE_TEST_GATE" ]; do sleep 0.05; done; fi
case "$req" in
  *'announce step."'*) echo ANNOUNCE_SKIP ;;
  *) msg=$(printf '%s' "$req" | tr -d '\n' | sed -n 's/.*"message": *"\([^"]*\)".*/\1/p'); echo "pong: $msg" ;;
esac
`
