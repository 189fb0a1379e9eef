package e2e_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/storegen"
)

// TestTTYUnderScript runs the built binary in a pseudo-terminal (util-linux
// `script`) with nothing behind it to answer terminal queries — the setup
// where a logger or colour library that asks the terminal for its
// background colour (OSC 11) hangs for seconds (DEPS §1.2). Every command
// must finish within 2 s and print its human form: a table with a header,
// coloured text, or its empty-result message.
func TestTTYUnderScript(t *testing.T) {
	scriptBin, err := exec.LookPath("script")
	if err != nil {
		t.Skip("skipping the pseudo-terminal test: `script` (util-linux) is not installed")
	}
	bin := buildBinary(t)
	fixture := filepath.Join(fixtures(t), "state-2026.1.30")
	// A JSON5 store makes the logger print a warning on the terminal.
	json5State := t.TempDir()
	copyTree(t, fixture, json5State)
	if err := os.WriteFile(filepath.Join(json5State, "agents/main/sessions/sessions.json"),
		[]byte("// operator edit\n{\"agent:main:main\": {sessionId: 'c040fd20-0a1c-4ce0-924c-6e695a32eecb', updatedAt: 1795236253191,},}\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	// No runs at all: neither ours nor OpenClaw's registry.
	noRuns := t.TempDir()
	copyTree(t, fixture, noRuns)
	if err := os.RemoveAll(filepath.Join(noRuns, "subagents")); err != nil {
		t.Fatal(err)
	}
	// 311 sessions: more than list's default limit.
	big := storegen.State(t, 311)
	// A run of ours beside OpenClaw's two, for the runs table at 80 columns.
	withRun := t.TempDir()
	copyTree(t, fixture, withRun)
	runID := "5d0e4c3a-2b1f-4e8d-9c7b-6a5f4e3d2c1b"
	if err := os.MkdirAll(filepath.Join(withRun, "sessions-cli", "runs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(withRun, "sessions-cli", "runs", runID+".json"), []byte(`{"runId":"`+runID+`","kind":"send","status":"ok",
		"createdAt":1795236300000,"target":{"key":"agent:main:telegram:group:-100123","agentId":"main"},"message":"hi","timeoutSeconds":0,
		"engine":"exec:true","replyDone":true,"reply":"a long reply that would not fit in eighty columns at all","steps":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		args []string
		want []string // substrings of the terminal output (escapes kept)
		cols string   // COLUMNS (default 120)
	}{
		{"list table", []string{"--state-dir", fixture, "list", "--all-agents"}, []string{"KEY", "KIND", "TOKENS", "UPDATED", "agent:ops:main", " ago"}, ""},
		{"agents table", []string{"--state-dir", fixture, "agents"}, []string{"AGENT", "WRITABLE", "SPAWN", "ops"}, ""},
		{"history coloured", []string{"--state-dir", fixture, "history", "main", "--limit", "2"}, []string{"\x1b[1;36massistant\x1b[0m"}, ""},
		{"runs empty", []string{"--state-dir", noRuns, "runs"}, []string{"No runs found."}, ""},
		{"runs tree empty", []string{"--state-dir", noRuns, "runs", "--tree"}, []string{"No sub-agent runs found."}, ""},
		{"runs tree openclaw", []string{"--state-dir", fixture, "runs", "--tree"}, []string{"agent:main:main", "[build-stats]", " ago", "openclaw"}, ""},
		{"list partial", []string{"--state-dir", big, "list"}, []string{"Showing 200 of 311 sessions (--limit all for every one)", "KEY"}, ""},
		{"list partial json", []string{"--state-dir", big, "list", "--json", "--limit", "5"}, []string{"Showing 5 of 311 sessions", `"hasMore": true`}, ""},
		{"list all", []string{"--state-dir", big, "list", "--limit", "all", "--jq", ".count"}, []string{"311"}, ""},
		// At 80 columns the keys and run ids are whole; other columns give way.
		{"list keys whole at 80", []string{"--state-dir", fixture, "list", "--all-agents"}, []string{
			"agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2", "agent:ops:cron:035bfbe3-107c-469b-8a17-ded8e4966021",
			"agent:main:signal:group:c2lnbmfslwdyb3vwlwlkltawmq==", "KIND", "UPDATED"}, "80"},
		{"runs partial", []string{"--state-dir", withRun, "runs", "--source", "all", "--limit", "1"}, []string{runID, "Showing 1 of 3 runs (--limit all for every one)"}, ""},
		{"runs tree partial", []string{"--state-dir", withRun, "runs", "--tree", "--limit", "1"}, []string{"Showing 1 of 2 sub-agent runs"}, ""},
		{"runs ids whole at 80", []string{"--state-dir", withRun, "runs", "--source", "all"}, []string{runID, "c2449ce1-bb94-4ecb-836d-a18eb20d7eb9", "0f8fd880-ca19-4a4a-9cf1-aa73ee1bf18c", "STATUS"}, "80"},
		{"locks empty", []string{"--state-dir", fixture, "locks"}, []string{"No locks held."}, ""},
		{"warning logged", []string{"--state-dir", json5State, "list"}, []string{"is JSON5", "KEY"}, ""},
		{"debug logging", []string{"--state-dir", fixture, "--log-level", "debug", "history", "main", "--limit", "1"}, []string{"assistant"}, ""},
		{"follow stops", []string{"--state-dir", fixture, "history", "main", "--limit", "1", "--follow", "--idle-timeout", "300ms"}, []string{"Following main", "assistant"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmdline := shellQuote(append([]string{bin}, c.args...))
			// A stall is deterministic (seconds per query); a single slow
			// run on a loaded machine is not, so one retry is allowed.
			var out []byte
			var took time.Duration
			for attempt := 1; ; attempt++ {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				cmd := exec.CommandContext(ctx, scriptBin, "-qec", cmdline, "/dev/null")
				// A colour terminal, nothing disabling colour.
				cmd.Env = withoutEnv(os.Environ(), "NO_COLOR", "CLICOLOR_FORCE", "TERM", "COLUMNS", "OPENCLAW_STATE_DIR", "OPENCLAW_SESSION_KEY", "SESSIONS_LOG_LEVEL")
				cols := c.cols
				if cols == "" {
					cols = "120"
				}
				cmd.Env = append(cmd.Env, "TERM=xterm-256color", "COLUMNS="+cols)
				start := time.Now()
				var err error
				out, err = cmd.Output()
				took = time.Since(start)
				stalled := errors.Is(ctx.Err(), context.DeadlineExceeded)
				cancel()
				if stalled && attempt < 2 {
					t.Logf("attempt %d took over 2s; retrying once", attempt)
					continue
				}
				if stalled {
					t.Fatalf("stalled: still running after %s under a pty (output so far: %q)", took, out)
				}
				if err != nil {
					t.Fatalf("%s: %v\n%s", cmdline, err, out)
				}
				break
			}
			got := strings.ReplaceAll(string(out), "\r\n", "\n")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("no %q in the terminal output (%s):\n%s", w, took, got)
				}
			}
			if strings.Contains(got, "…") && c.cols == "80" && strings.Contains(got, "agent:mai…") {
				t.Errorf("a key was cut at 80 columns:\n%s", got)
			}
			if strings.Contains(got, "\x1b]11;?") || strings.Contains(got, "\x1b[6n") {
				t.Errorf("the binary queried the terminal:\n%q", got)
			}
			t.Logf("%s: %s", c.name, took)
		})
	}
}

// TestFollowEndsOnSignals: `history --follow` ends with exit 0 on SIGTERM
// and on SIGINT, promptly.
func TestFollowEndsOnSignals(t *testing.T) {
	bin := buildBinary(t)
	fixture := filepath.Join(fixtures(t), "state-2026.1.30")
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "--state-dir", fixture, "history", "main", "--limit", "1", "--follow", "--json")
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The first message line means the follow loop is set up (or about to be).
			line := make([]byte, 1)
			if _, err := stdout.Read(line); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond)
			start := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, _ = io.Copy(io.Discard, stdout); done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("exit after %s: %v (want status 0)", sig, err)
				}
			case <-time.After(2 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("still running 2s after %s", sig)
			}
			t.Logf("ended %s after %s", sig, time.Since(start))
		})
	}
}

func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

func withoutEnv(env []string, names ...string) []string {
	out := env[:0:0]
	for _, kv := range env {
		keep := true
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := testutil.CopyTree(src, dst); err != nil {
		t.Fatal(err)
	}
}
