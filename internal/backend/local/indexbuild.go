package local

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw/sessions/internal/hostread"
	"github.com/openclaw/sessions/internal/runner"
	"github.com/openclaw/sessions/internal/state"
)

// indexBuilder is how a search of this host's state dir starts the build
// of its index in the background (hostread.SearchIndex.Background): one
// detached `sessions index --update --background` for the state dir, at
// low priority, its stdio the null device, with b's flags naming the
// requester. nil inside a package's test binary, where the executable
// would run the tests again.
func (l *Local) indexBuilder(s *state.State, b *hostread.BackgroundBuild) func() error {
	if testBinary() {
		return nil
	}
	return func() error {
		cfg := ""
		if s.Cfg != nil && s.Cfg.Exists {
			cfg = s.Cfg.Path
		}
		pid, err := runner.StartDetached(runner.StartOptions{StateDir: s.Dir.Path, ConfigPath: cfg, Extra: b.Flags}, os.TempDir(), nil,
			"index", "--update", "--background")
		if err != nil {
			return err
		}
		l.debug("search index: building it in the background", "pid", pid)
		if b.Notice != nil {
			b.Notice("Building the search index in the background (sessions index shows how far it has got); until then search scans.")
		}
		return nil
	}
}

// testBinary: this process is a Go test binary that is not standing in for
// sessions (a package's tests; the end-to-end scripts run it as
// "sessions", and $SESSIONS_RUNNER_EXE names the executable to start).
func testBinary() bool {
	if os.Getenv("SESSIONS_RUNNER_EXE") != "" {
		return false
	}
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	name := strings.TrimSuffix(filepath.Base(exe), ".exe")
	argv0 := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	return strings.HasSuffix(name, ".test") && argv0 != "sessions"
}
