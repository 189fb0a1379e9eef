package usage_test

import (
	"os"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
)

// BenchmarkWarm runs `usage --by day` on $SESSIONS_USAGE_BENCH_STATE (the
// 1,000 × 1 MB state of scripts/bench_usage.sh) with its cache filled:
// where a warm run's time goes (-cpuprofile). Skipped when unset.
func BenchmarkWarm(b *testing.B) {
	state := os.Getenv("SESSIONS_USAGE_BENCH_STATE")
	if state == "" {
		b.Skip("SESSIONS_USAGE_BENCH_STATE not set")
	}
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	run := func() {
		ios, _, _, errOut := iostreams.Test()
		f := &cmdutil.Factory{IO: ios, Env: config.Env{Getenv: os.Getenv, Home: "/nonexistent-home"},
			Flags: &cmdutil.GlobalFlags{}, Now: time.Now, Getenv: os.Getenv}
		if code := cli.Run(f, []string{"--state-dir", state, "usage", "--by", "day"}); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut)
		}
	}
	run()
	for b.Loop() {
		run()
	}
}
