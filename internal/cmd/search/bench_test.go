package search_test

import (
	"os"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
)

// BenchmarkSearchCmd runs `search --limit all --json` for a rare literal on
// $SESSIONS_SEARCH_BENCH_STATE (a state dir such as the one
// scripts/bench_usage.sh generates): the whole command, from the listing of
// the transcripts to the document. Skipped when unset.
func BenchmarkSearchCmd(b *testing.B) {
	state := os.Getenv("SESSIONS_SEARCH_BENCH_STATE")
	if state == "" {
		b.Skip("SESSIONS_SEARCH_BENCH_STATE not set")
	}
	for b.Loop() {
		ios, _, _, errOut := iostreams.Test()
		f := &cmdutil.Factory{IO: ios, Env: config.Env{Getenv: os.Getenv, Home: "/nonexistent-home"},
			Flags: &cmdutil.GlobalFlags{}, Now: time.Now, Getenv: os.Getenv}
		if code := cli.Run(f, []string{"--state-dir", state, "search", "--include-archived", "--limit", "all", "--json", "zebra42"}); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut)
		}
	}
}
