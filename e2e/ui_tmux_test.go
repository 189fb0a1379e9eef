package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil"
)

// uiTerm is the real binary's `sessions ui` in a tmux pane: keys go in
// with send-keys, the screen comes out with capture-pane.
type uiTerm struct {
	t      *testing.T
	tmux   string
	socket string
}

// startUI runs `sessions ui ARGS` in a detached tmux session of w×h on its
// own server, with env; when the UI exits, the pane prints EXIT=<code> and
// stays.
func startUI(t *testing.T, w, h int, env []string, bin string, args ...string) *uiTerm {
	t.Helper()
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("skipping the terminal UI test: tmux is not installed")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "run.sh")
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "" || strings.ContainsAny(k, " ()") {
			continue
		}
		fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote([]string{v}))
	}
	b.WriteString("export TERM=xterm-256color\n")
	b.WriteString(shellQuote(append([]string{bin}, args...)))
	b.WriteString("\necho \"EXIT=$?\"\nexec sleep 600\n")
	if err := os.WriteFile(script, []byte(b.String()), 0o700); err != nil {
		t.Fatal(err)
	}
	u := &uiTerm{t: t, tmux: tmuxBin, socket: filepath.Join(dir, "tmux.sock")}
	u.run("-f", "/dev/null", "new-session", "-d", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), script)
	t.Cleanup(func() { _ = exec.Command(u.tmux, "-S", u.socket, "kill-server").Run() })
	return u
}

func (u *uiTerm) run(args ...string) string {
	u.t.Helper()
	out, err := exec.Command(u.tmux, append([]string{"-S", u.socket}, args...)...).CombinedOutput()
	if err != nil {
		u.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys sends tmux key names (Enter, Escape, C-c, …) or literal text.
func (u *uiTerm) keys(keys ...string) {
	u.t.Helper()
	u.run(append([]string{"send-keys", "-t", "0"}, keys...)...)
}

// text types s literally.
func (u *uiTerm) text(s string) {
	u.t.Helper()
	u.run("send-keys", "-t", "0", "-l", s)
}

func (u *uiTerm) screen() string {
	u.t.Helper()
	return u.run("capture-pane", "-p", "-t", "0")
}

// waitFor polls the screen until ok holds (a generous deadline: the
// machine may be busy); it returns the screen.
func (u *uiTerm) waitFor(what string, ok func(string) bool) string {
	u.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var s string
	for time.Now().Before(deadline) {
		s = u.screen()
		if ok(s) {
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	u.t.Fatalf("the screen never showed %s:\n%s", what, s)
	return ""
}

func (u *uiTerm) waitText(subs ...string) string {
	u.t.Helper()
	return u.waitFor(strconv.Quote(strings.Join(subs, `", "`)), func(s string) bool {
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				return false
			}
		}
		return true
	})
}

// TestUIInTmux drives the real binary's terminal UI in tmux on a copy of
// each era's demo state: the listing, a filter, opening a session, a
// message another writer appends showing up, a send through the UI with the
// fake engine and its reply, Esc back, q: exit 0 and the terminal restored.
func TestUIInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("skipping the terminal UI test: tmux is not installed")
	}
	bin := buildBinary(t) // the real binary, as an operator runs it
	for _, era := range []struct {
		name, fixture string
		filter, key   string // a filter that leaves the one session to open
		other         string // a key the filter hides
		appendWriter  func(t *testing.T, state string, env []string, bin, key, text string)
	}{
		{"json", "state-2026.1.30", "signal:dm", "agent:main:signal:dm:+15551230001", "agent:ops:main", appendJSONL},
		{"sqlite", "state-2026.9.6", "", "", "", appendBySend},
	} {
		t.Run(era.name, func(t *testing.T) {
			root := t.TempDir()
			state := filepath.Join(root, "state")
			copyTree(t, filepath.Join(fixtures(t), era.fixture), state)
			engine := filepath.Join(root, "engine.sh")
			if err := os.WriteFile(engine, []byte(testutil.EngineScript), 0o755); err != nil {
				t.Fatal(err)
			}
			env := relEnv(root, "SESSIONS_ENGINE=exec:sh '"+engine+"'", "SESSIONS_RUNNER_EXE="+bin,
				"XDG_CONFIG_HOME="+filepath.Join(root, "xdg-config"), "XDG_STATE_HOME="+filepath.Join(root, "xdg-state"))
			key, filter, other := era.key, era.filter, era.other
			if key == "" {
				key, filter, other = pickSession(t, bin, state, env)
			}

			u := startUI(t, 120, 32, env, bin, "--state-dir", state, "ui", "--all-agents")
			u.waitText("KEY", "TOKENS", "BUSY", key, other, "live")

			// / filters; Enter keeps it
			u.keys("/")
			u.text(filter)
			u.keys("Enter")
			u.waitFor("the filtered listing", func(s string) bool {
				return strings.Contains(s, "filter: "+strings.ToLower(filter)) && strings.Contains(s, key) && !strings.Contains(s, other)
			})

			// Enter opens the session, following its transcript
			u.keys("Enter")
			u.waitText("transcript ·", "following", "esc/q back")

			// another writer appends a message: it appears
			era.appendWriter(t, state, env, bin, key, "written beside the UI")
			u.waitText("written beside the UI")

			// send through the UI: m, the message, Enter, y; the reply arrives
			u.keys("m")
			u.waitText("Message")
			u.text("hello from tmux")
			u.keys("Enter")
			u.waitText("Send")
			u.keys("y")
			u.waitText("pong: hello from tmux")

			// Esc leaves the dialog, then the session: the listing again
			u.keys("Escape")
			u.waitFor("the session view again", func(s string) bool {
				return strings.Contains(s, "transcript ·") && strings.Contains(s, "pong: hello from tmux")
			})
			u.keys("Escape")
			u.waitText("KEY", "filter: ")

			// q quits: exit 0, the normal screen back
			u.keys("q")
			u.waitText("EXIT=0")
			if alt := strings.TrimSpace(u.run("display-message", "-p", "-t", "0", "#{alternate_on}")); alt != "0" {
				t.Fatalf("the alternate screen is still on (%q)", alt)
			}
			if s := u.screen(); strings.Contains(s, "transcript ·") || strings.Contains(s, "? help") {
				t.Fatalf("the UI is left on the screen:\n%s", s)
			}
		})
	}
}

// TestUINeedsTerminal: stdout not a terminal is exit 2 with a message that
// says a terminal is needed.
func TestUINeedsTerminal(t *testing.T) {
	bin := relExe(t)
	cmd := exec.Command(bin, "--state-dir", filepath.Join(fixtures(t), "state-2026.1.30"), "ui")
	cmd.Env = relEnv(t.TempDir())
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want 2\n%s", err, out)
	}
	if !strings.Contains(string(out), "needs a terminal") {
		t.Fatalf("message: %s", out)
	}
}

// appendJSONL appends a user message to the session's transcript as
// OpenClaw 2026.1.30 does (a JSONL line).
func appendJSONL(t *testing.T, state string, _ []string, _, _, text string) {
	t.Helper()
	p := filepath.Join(state, "agents/main/sessions/26a610b5-ea74-4c48-bd74-9be14f7f2944.jsonl")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the signal dm's transcript: %v", err)
	}
	line, _ := json.Marshal(map[string]any{"type": "message", "id": "tmux0001", "parentId": nil, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"message": map[string]any{"role": "user", "content": []map[string]any{{"type": "text", "text": text}}, "timestamp": time.Now().UnixMilli()}})
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
}

// appendBySend writes a turn into a SQLite-era session from another
// process: `sessions send` with the fake engine.
func appendBySend(t *testing.T, state string, env []string, bin, key, text string) {
	t.Helper()
	cmd := exec.Command(bin, "--state-dir", state, "send", key, text, "--timeout", "60")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("send: %v\n%s", err, out)
	}
}

// pickSession chooses, in the SQLite fixture, a session to open (its whole
// key is the filter) and another the filter hides.
func pickSession(t *testing.T, bin, state string, env []string) (key, filter, other string) {
	t.Helper()
	cmd := exec.Command(bin, "--state-dir", state, "list", "--all-agents", "--json")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	var doc struct {
		Sessions []struct {
			Key  string `json:"key"`
			Kind string `json:"kind"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || len(doc.Sessions) < 2 {
		t.Fatalf("list: %v %s", err, out)
	}
	for _, s := range doc.Sessions {
		if s.Kind == "group" && key == "" {
			key = s.Key
		}
	}
	if key == "" {
		key = doc.Sessions[0].Key
	}
	for _, s := range doc.Sessions {
		if !strings.Contains(s.Key, key) {
			other = s.Key
			break
		}
	}
	return key, key, other
}
