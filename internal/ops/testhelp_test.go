package ops

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/testutil"
)

// fixtureOps is an Ops on a copy of testdata/<fixture> with env as the
// environment (HOME and the user dirs in temporary directories).
func fixtureOps(t testing.TB, fixture string, env map[string]string, c Config) (*Ops, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", fixture), dir); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // the contexts file and our device files
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return env[k]
	}
	c.StateDir = dir
	c.Env = config.Env{Home: home, Getenv: getenv}
	c.Getenv = getenv
	if c.Now == nil {
		c.Now = func() time.Time { return time.UnixMilli(1900000000000) }
	}
	c.LockTimeout = time.Second
	return New(c), dir
}
