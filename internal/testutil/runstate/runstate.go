// Package runstate gives a test its own copy of a fixture state dir that
// sends and spawns can run on — an exec engine (testutil.EngineScript), an
// isolated HOME and XDG dirs, none of this machine's OpenClaw variables —
// and waits, when the test ends, for the detached runners it started, so
// that none writes into a temp dir being removed.
package runstate

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/testutil"
)

// State is a test's state dir: Tmp holds it (Dir) and stands as HOME; Vars
// are the environment the test set, for the ops' Getenv and for child
// processes.
type State struct {
	Tmp, Dir string
	Vars     map[string]string
}

// New copies testdata/fixture to a temp dir and sets the test's
// environment for it (extra vars are added to Vars only). No run is
// performed unless the test calls WithRunner.
func New(t *testing.T, fixture string, extra map[string]string) *State {
	t.Helper()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", fixture), dir); err != nil {
		t.Fatal(err)
	}
	engine := filepath.Join(tmp, "engine.sh")
	if err := os.WriteFile(engine, []byte(testutil.EngineScript), 0o755); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"HOME": tmp, "XDG_CONFIG_HOME": filepath.Join(tmp, "xdg-config"),
		"XDG_STATE_HOME": filepath.Join(tmp, "xdg-state"), "XDG_CACHE_HOME": filepath.Join(tmp, "xdg-cache"),
		"SESSIONS_ENGINE": "exec:sh " + engine,
	}
	for k, v := range extra {
		vars[k] = v
	}
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"} {
		t.Setenv(k, vars[k])
	}
	for _, k := range []string{"OPENCLAW_STATE_DIR", "OPENCLAW_SESSION_KEY", "OPENCLAW_GATEWAY_URL", "OPENCLAW_GATEWAY_TOKEN", "OPENCLAW_GATEWAY_PASSWORD", "ENGINE_TEST_GATE"} {
		t.Setenv(k, "")
	}
	// no runner unless a test starts runs (WithRunner)
	t.Setenv("SESSIONS_RUNNER_EXE", "/bin/false")
	t.Cleanup(func() { Settle(dir) })
	return &State{Tmp: tmp, Dir: dir, Vars: vars}
}

// WithRunner lets the runs the test starts be performed by a real detached
// runner: the sessions binary, built once.
func WithRunner(t *testing.T) {
	t.Setenv("SESSIONS_RUNNER_EXE", testutil.SessionsBinary(t))
}

// startGrace is how long Settle gives a runner just started to take its
// lock.
const startGrace = 5 * time.Second

// Settle waits (at most a minute) for the detached runners started on the
// state dir to end. A run still "accepted" with its lock free may be one
// whose runner has not taken the lock yet: it is given startGrace to (a
// runner that never starts, /bin/false, costs that much).
func Settle(stateDir string) {
	rs := runs.Open(stateDir)
	recs, _ := rs.List()
	start := time.Now()
	deadline := start.Add(time.Minute)
	for _, r := range recs {
		for time.Now().Before(deadline) {
			if !rs.RunnerAlive(r.RunID) {
				cur, err := rs.Load(r.RunID)
				if err != nil || cur.Status != runs.StatusAccepted || time.Since(start) > startGrace {
					break
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
