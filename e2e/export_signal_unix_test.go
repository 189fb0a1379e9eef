//go:build !windows

package e2e_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExportInterruptedLeavesNothing: `export -o FILE` ended by SIGINT or
// SIGTERM midway returns by itself, removes its temporary file and writes
// no FILE (exit 1, said so), as on any other error.
func TestExportInterruptedLeavesNothing(t *testing.T) {
	bin := buildBinary(t)
	root := t.TempDir()
	state := relState(t, root, "state-2026.1.30")
	tr := filepath.Join(state, "agents", "main", "sessions", "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("a long conversation ", 50)
	for i := 0; i < 60000; i++ { // ~60 MB: a second or more to export, so the signal comes midway
		fmt.Fprintf(f, `{"type":"message","id":"x%d","parentId":"x","timestamp":"2026-11-21T06:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"%d %s"}],"timestamp":%d}}`+"\n", i, i, text, 1795240800000+i)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := t.TempDir()
			file := filepath.Join(out, "main.html")
			cmd := exec.Command(bin, "--state-dir", state, "export", "main", "-o", file)
			cmd.Env = relEnv(root)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Signalled once the temporary file has some of the page.
			deadline := time.Now().Add(time.Minute)
			for {
				es, _ := os.ReadDir(out)
				if len(es) == 1 && strings.Contains(es[0].Name(), ".tmp-") {
					if fi, err := es[0].Info(); err == nil && fi.Size() > 0 {
						break
					}
				}
				if time.Now().After(deadline) {
					t.Fatal("no temporary file began in a minute")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			var werr error
			select {
			case werr = <-done:
			case <-time.After(time.Minute):
				_ = cmd.Process.Kill()
				t.Fatalf("still running a minute after %s", sig)
			}
			if werr == nil {
				t.Fatal("the export finished before the signal reached it: make the transcript longer")
			}
			var ee *exec.ExitError
			if !errors.As(werr, &ee) || ee.Sys().(syscall.WaitStatus).Signaled() || ee.ExitCode() != 1 {
				t.Errorf("after %s: %v (want exit 1, returned by itself)", sig, werr)
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stderr %q", stderr.String())
			}
			if es, _ := os.ReadDir(out); len(es) != 0 {
				t.Errorf("left behind after %s: %v", sig, es)
			}
		})
	}
}
