//go:build unix

package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/log/v2"

	"github.com/openclaw/sessions/internal/apperr"
)

// A search of the operator's index that finds it far behind starts one
// build in the background — `sessions --state-dir DIR index --update
// --background`, detached — and tells the terminal once (Notice); with
// $SESSIONS_INDEX_BACKGROUND=0 it starts none. An agent's search does the
// same for its masked index (`--as KEY index --update --background`),
// told to no one. The
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
		name   string
		env    map[string]string
		as     string
		start  bool
		redact bool
	}{
		{"on", nil, "", true, false},
		{"switched off", map[string]string{IndexBackgroundEnv: "0"}, "", false, false},
		{"an agent", nil, "agent:main:main", true, false},
		{"an agent, switched off", map[string]string{IndexBackgroundEnv: "0"}, "agent:main:main", false, false},
		// from the environment, sandboxed: said on the builder's command
		// line (the detached process gets neither variable)
		{"a sandboxed agent", map[string]string{"OPENCLAW_SESSION_KEY": "agent:main:main", "OPENCLAW_SANDBOXED": "1"}, "", true, false},
		// the operator's masked search (the MCP server's): its masked
		// index, told at the terminal as the operator's is
		{"the operator, --redact", nil, "", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(argsFile)
			o, dir := fixtureOps(t, "state-2026.1.30", c.env, Config{As: c.as, Redact: c.redact})
			grow := "c040fd20-0a1c-4ce0-924c-6e695a32eecb"
			if c.env["OPENCLAW_SANDBOXED"] != "" {
				grow = "0c59edd8-9b7b-4d26-9fb1-8b3778f90a3d" // the one session it spawned: all it sees
			}
			growTranscript(t, filepath.Join(dir, "agents/main/sessions", grow+".jsonl"), 6<<20)
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
			if !strings.Contains(logs.String(), "building it in the background") {
				t.Fatalf("no build said:\n%s", logs.String())
			}
			// The notice is for the operator at a terminal: an agent is
			// not told to run sessions index, which is not its.
			agent := c.as != "" || c.env["OPENCLAW_SESSION_KEY"] != ""
			if agent && len(notices) != 0 {
				t.Fatalf("an agent was told %q", notices)
			}
			if !agent && (len(notices) != 1 || !strings.Contains(notices[0], "Building the search index in the background")) {
				t.Fatalf("notices %q", notices)
			}
			// The detached script writes its arguments when it runs.
			var got []byte
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if got, err = os.ReadFile(argsFile); err == nil && bytes.HasSuffix(got, []byte("\n")) {
					break
				}
			}
			// the fixture has a config file: the builder reads the same one;
			// an agent's builds its own masked index, acting as it
			as := ""
			if c.as != "" {
				as = " --as " + c.as
			}
			if c.env["OPENCLAW_SANDBOXED"] != "" {
				as = " --as " + c.env["OPENCLAW_SESSION_KEY"] + " --sandboxed"
			}
			if c.redact {
				as = " --redact"
			}
			if want := "--state-dir " + dir + " --config " + filepath.Join(dir, "openclaw.json") + as + " index --update --background\n"; string(got) != want {
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

// What an agent's search starts in the background — Index with
// Background, run as the same requester — builds the masked index that
// search reads (the same mask key: the host's patterns and the
// requester), and then the search answers from it; before and after, the
// answer is the scan's. The requester may not ask for anything else of
// the index.
func TestAgentSearchBackgroundBuilder(t *testing.T) {
	bin := t.TempDir()
	exe := filepath.Join(bin, "fake-sessions")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SESSIONS_RUNNER_EXE", exe)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{As: "agent:main:main"})
	t.Cleanup(func() { CloseSearchIndexes() })
	growTranscript(t, filepath.Join(dir, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl"), 6<<20)
	q := SearchQuery{Pattern: SearchPattern{Pattern: "filler 77 lorem"}, AllAgents: true, IncludeArchived: true, Limit: 5}
	search := func(q SearchQuery) (string, string) {
		t.Helper()
		var logs bytes.Buffer
		cfg := o.cfg
		cfg.Log = log.New(&logs)
		cfg.Log.SetLevel(log.DebugLevel)
		res, err := New(cfg).Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		res.Fill()
		doc, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return string(doc), logs.String()
	}
	nq := q
	nq.NoIndex = true
	scan, _ := search(nq)
	if !strings.Contains(scan, `"totalCount":1,`) {
		t.Fatalf("scan: %s", scan)
	}
	got, logs := search(q)
	if got != scan || !strings.Contains(logs, "building it in the background; scanning") {
		t.Fatalf("far behind: %s\n%s", got, logs)
	}

	for _, r := range []IndexRequest{{}, {Update: true}, {Rebuild: true}, {Remove: true}} {
		if _, err := New(o.cfg).Index(context.Background(), r); apperr.CodeOf(err) != apperr.CodeForbidden {
			t.Fatalf("%+v: %v, want forbidden", r, err)
		}
	}
	if _, err := New(o.cfg).Index(context.Background(), IndexRequest{Update: true, Background: true}); err != nil {
		t.Fatal(err)
	}

	got, logs = search(q)
	if got != scan || strings.Contains(logs, "scanning") || strings.Contains(logs, "background") || !strings.Contains(logs, "search index: ") {
		t.Fatalf("built: %s\n%s", got, logs)
	}
	// The raw index was not built: the operator's first search finds it
	// far behind.
	op := o.cfg
	op.As = ""
	res, err := New(op).Index(context.Background(), IndexRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Index != nil && res.Index.Built || len(res.Masked) != 1 || !res.Masked[0].Built {
		t.Fatalf("indexes: raw %+v, masked %+v", res.Index, res.Masked)
	}
}
