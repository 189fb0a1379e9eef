package history_test

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
)

// BenchmarkHistory is one whole `sessions history main --json` (state
// opened, session resolved, page read, sanitised and printed) on each
// fixture: what a user waits for.
func BenchmarkHistory(b *testing.B) {
	for _, fx := range []string{"state-2026.1.30", "state-2026.9.6"} {
		dir, err := filepath.Abs(filepath.Join("../../../testdata", fx))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fx, func(b *testing.B) {
			for b.Loop() {
				ios, _, _, _ := iostreams.Test()
				var out bytes.Buffer
				ios.Out, ios.ErrOut = &out, io.Discard
				f := &cmdutil.Factory{
					IO:     ios,
					Env:    config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"},
					Flags:  &cmdutil.GlobalFlags{},
					Log:    log.New(io.Discard),
					Now:    time.Now,
					Getenv: func(string) string { return "" },
				}
				if code := cli.Run(f, []string{"--state-dir", dir, "history", "main", "--include-tools", "--json"}); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
