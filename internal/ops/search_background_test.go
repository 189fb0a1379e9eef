//go:build unix

package ops

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/log/v2"
)

// A search of the operator's index that finds it far behind starts one
// build in the background — `sessions --state-dir DIR index --update
// --background`, detached — and tells the terminal once (Notice); with
// $SESSIONS_INDEX_BACKGROUND=0, or for an agent, it starts none. The
// executable is a script that records its arguments
// ($SESSIONS_RUNNER_EXE, as for the runner of a run).
func TestSearchStartsBackgroundBuild(t *testing.T) {
	bin := t.TempDir()
	exe := filepath.Join(bin, "fake-sessions")
	argsFile := filepath.Join(bin, "args")
	script := fmt.Sprintf("#!/bin/sh\necho \"$@\" >> %s\n", argsFile)
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SESSIONS_RUNNER_EXE", exe)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())

	for _, c := range []struct {
		name  string
		env   map[string]string
		as    string
		start bool
	}{
		{"on", nil, "", true},
		{"switched off", map[string]string{IndexBackgroundEnv: "0"}, "", false},
		{"an agent", nil, "agent:main:main", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(argsFile)
			o, dir := fixtureOps(t, "state-2026.1.30", c.env, Config{As: c.as})
			growTranscript(t, filepath.Join(dir, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl"), 6<<20)
			var logs bytes.Buffer
			cfg := o.cfg
			cfg.Log = log.New(&logs)
			cfg.Log.SetLevel(log.DebugLevel)
			var notices []string
			res, err := New(cfg).Search(context.Background(), SearchQuery{Pattern: SearchPattern{Pattern: "filler 77 lorem"}, AllAgents: true,
				Notice: func(line string) { notices = append(notices, line) }})
			if err != nil {
				t.Fatal(err)
			}
			if res.TotalCount != 1 {
				t.Fatalf("no hits: %s", logs.String())
			}
			if !c.start {
				if len(notices) > 0 || strings.Contains(logs.String(), "building it in the background") {
					t.Fatalf("a build was started: %q\n%s", notices, logs.String())
				}
				if _, err := os.Stat(argsFile); err == nil {
					t.Fatal("the builder ran")
				}
				return
			}
			if len(notices) != 1 || !strings.Contains(notices[0], "Building the search index in the background") {
				t.Fatalf("notices %q", notices)
			}
			// The detached script writes its arguments when it runs.
			var got []byte
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if got, err = os.ReadFile(argsFile); err == nil && bytes.HasSuffix(got, []byte("\n")) {
					break
				}
			}
			// the fixture has a config file: the builder reads the same one
			if want := "--state-dir " + dir + " --config " + filepath.Join(dir, "openclaw.json") + " index --update --background\n"; string(got) != want {
				t.Fatalf("builder started with %q, want %q", got, want)
			}
		})
	}
}

// growTranscript appends messages to the transcript at path until it holds
// at least size bytes.
func growTranscript(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	for i := 0; int64(buf.Len()) < size; i++ {
		fmt.Fprintf(&buf, `{"type":"message","id":"bg%d","timestamp":"2026-11-21T10:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"filler %d %s"}]}}`+"\n",
			i, i, strings.Repeat("lorem ipsum ", 80))
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
}
