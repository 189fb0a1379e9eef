// Package peertest is what the interop tests (build tag interop) share to
// drive the OpenClaw 2026.1.30 test peer (../shared/peer/openclaw-peer):
// finding and installing the peer (or skipping with one line), copies of the
// fixture state with their config pointed into the copy, the peer's tools
// (store-write, transcript-append, transcript-check), the real openclaw CLI
// (`openclaw-peer run`), its mock LLM, and a freshly built sessions binary.
//
// It is a normal package so that `go vet` sees it in every build, but only
// interop tests import it. Failures are reported through the testing.TB
// given; helpers that may run outside the test's goroutine (Tool) return an
// error instead.
package peertest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil"
)

// Env is the variable that names the openclaw-peer script.
const Env = "OPENCLAW_PEER"

// exitUnavailable is openclaw-peer's exit status when the peer cannot be
// provided here (no registry, no npm, unsupported platform): callers skip.
const exitUnavailable = 75

var (
	installOnce sync.Once
	installSkip string
	installErr  error
)

// Peer returns the openclaw-peer script named by $OPENCLAW_PEER, running
// `openclaw-peer install` once per test binary. It skips the test with one
// line when the variable is unset or the install exits 75 (peer
// unavailable), and fails it when the install fails otherwise.
func Peer(t testing.TB) string {
	t.Helper()
	p := os.Getenv(Env)
	if p == "" {
		t.Skip(Env + " not set (run: make interop)")
	}
	installOnce.Do(func() {
		out, err := exec.Command(p, "install").CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == exitUnavailable && !installedPerStatus(p) {
			installSkip = fmt.Sprintf("OpenClaw peer unavailable (openclaw-peer install exited %d): %s", exitUnavailable, LastLine(string(out)))
		} else if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == exitUnavailable) {
			installErr = fmt.Errorf("openclaw-peer install: %v\n%s", err, out)
		}
	})
	if installSkip != "" {
		t.Skip(installSkip)
	}
	if installErr != nil {
		t.Fatal(installErr)
	}
	return p
}

// installedPerStatus: `openclaw-peer status [ARGS]` says the peer is
// installed (its marker and Node are there). install checks an existing
// install by running `openclaw --version` within 120 s, which a loaded
// machine (load 38 on 2 cores) exceeded: install then went on to the
// registry and exited 75 ("unavailable"), and every interop test skipped.
// An install that status confirms is used, not skipped.
func installedPerStatus(p string, args ...string) bool {
	return exec.Command(p, append([]string{"status"}, args...)...).Run() == nil
}

// LastLine returns the last non-empty line of s, trimmed.
func LastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[i+1:])
	}
	return s
}

// Cmd runs `openclaw-peer ARGS...` to completion and returns its combined
// output, trimmed; a failure fails the test with that output.
func Cmd(t testing.TB, p string, args ...string) string {
	t.Helper()
	out, err := exec.Command(p, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("openclaw-peer %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Paths returns the peer's node binary and OpenClaw install dir (from
// `openclaw-peer env`), for running OpenClaw's own modules directly.
func Paths(t testing.TB, p string) (node, ocDir string) {
	t.Helper()
	out, err := exec.Command(p, "env").Output()
	if err != nil {
		t.Fatalf("openclaw-peer env: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		v = strings.Trim(v, `"`)
		switch k {
		case "OPENCLAW_PEER_NODE":
			node = v
		case "OPENCLAW_PEER_OC_DIR":
			ocDir = v
		}
	}
	if node == "" || ocDir == "" {
		t.Fatalf("openclaw-peer env: no node/OpenClaw dir in\n%s", out)
	}
	return node, ocDir
}

// ---- store-write / transcript-append ----

// Result is the JSON line store-write and transcript-append print last.
type Result struct {
	Op         string  `json:"op"`
	PID        int     `json:"pid"`
	OK         int     `json:"ok"`
	Failed     int     `json:"failed"`
	P50Ms      float64 `json:"p50Ms"`
	MaxMs      float64 `json:"maxMs"`
	FirstError string  `json:"firstError"`
}

// result parses a tool's last stdout line; err is the tool's exit error. The
// error returned covers a failed run, an unparsable line and failed
// operations, with the tool's output.
func result(args []string, err error, stdout, stderr string) (Result, string, error) {
	var res Result
	line := LastLine(stdout)
	if jerr := json.Unmarshal([]byte(line), &res); jerr != nil && err == nil {
		err = fmt.Errorf("no result line: %v", jerr)
	}
	if err == nil && res.Failed != 0 {
		err = fmt.Errorf("%d failed: %s", res.Failed, res.FirstError)
	}
	if err != nil {
		return res, line, fmt.Errorf("openclaw-peer %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout, stderr)
	}
	return res, line, nil
}

// Tool runs a peer tool that prints a Result (store-write,
// transcript-append) to completion. It returns the result, its raw line, and
// an error when the tool failed or reported failed operations. It does not
// touch a testing.TB, so it may run in any goroutine.
func Tool(p string, args ...string) (Result, string, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(p, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return result(args, err, out.String(), errb.String())
}

// Proc is a peer tool running in the background (see Start).
type Proc struct {
	cmd            *exec.Cmd
	args           []string
	out, errb      bytes.Buffer
	Started, Ended time.Time
	done           chan struct{}
	err            error
}

// Start starts a peer tool in the background; it is killed when the test
// ends if it is still running.
func Start(t testing.TB, p string, args ...string) *Proc {
	t.Helper()
	r := &Proc{cmd: exec.Command(p, args...), args: args, done: make(chan struct{})}
	r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.errb
	r.Started = time.Now()
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.err = r.cmd.Wait(); r.Ended = time.Now(); close(r.done) }()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

// Running reports whether the tool has not exited yet.
func (r *Proc) Running() bool {
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

// Result waits for the tool and returns its Result; a failure fails the test.
func (r *Proc) Result(t testing.TB) Result {
	t.Helper()
	<-r.done
	res, _, err := result(r.args, r.err, r.out.String(), r.errb.String())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Duration is how long the tool ran (valid after Result).
func (r *Proc) Duration() time.Duration { return r.Ended.Sub(r.Started) }

// TranscriptCheck runs `openclaw-peer transcript-check --file FILE`
// (with --expect-messages when messages > 0) and returns its output,
// trimmed. err is set when the check fails: the chain is broken, or the
// count differs.
func TranscriptCheck(p, file string, messages int) (string, error) {
	args := []string{"transcript-check", "--file", file}
	if messages > 0 {
		args = append(args, "--expect-messages", strconv.Itoa(messages))
	}
	b, err := exec.Command(p, args...).CombinedOutput()
	out := strings.TrimSpace(string(b))
	if err == nil {
		var res struct {
			OK bool `json:"ok"`
		}
		if json.Unmarshal([]byte(LastLine(out)), &res) != nil || !res.OK {
			err = errors.New("result is not ok")
		}
	}
	if err != nil {
		return out, fmt.Errorf("transcript-check %s: %v\n%s", file, err, out)
	}
	return out, nil
}

// ---- the real openclaw CLI ----

// OpenClaw runs the real openclaw CLI as `openclaw-peer run --home HOME
// --state STATE --cwd HOME --timeout 300 -- ARGS...` and returns its
// stdout; a failure fails the test with its stderr.
func OpenClaw(t testing.TB, p, home, state string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(p, append([]string{"run", "--home", home, "--state", state, "--cwd", home, "--timeout", "300", "--"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("openclaw %s: %v\n%s\n%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return out
}

// StartMockLLM starts the peer's deterministic OpenAI-compatible mock LLM
// on a free loopback port with a full request log (see ReadMockLog),
// stopped by its PID when the test ends. It returns the baseUrl to
// configure and the log's path.
func StartMockLLM(t testing.TB, p string) (baseURL, logPath string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	logPath = filepath.Join(t.TempDir(), "mock-llm.jsonl")
	// It is stopped when the test ends; its own limit only catches a test
	// binary that died without cleaning up, so it must outlast the slowest
	// test on a loaded machine (300 s did not: a 9.6 engine test ran 334 s).
	cmd := exec.Command(p, "mock-llm", "--port", strconv.Itoa(port), "--max-seconds", "1800", "--log", logPath, "--log-full")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// mock-llm execs the server: cmd.Process is the server
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	// Python's start-up on a loaded machine took more than 20 s: wait
	// generously for the line, but not at all once the server has exited.
	ready, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on") {
				close(ready)
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case <-ready:
	case <-ended:
		t.Fatal("mock-llm exited without listening (see its stderr above)")
	case <-time.After(3 * time.Minute):
		t.Fatal("mock-llm did not start within 3 minutes")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/v1", port), logPath
}

// MockRequest is one line of the mock LLM's request log.
type MockRequest struct {
	Roles    []string       `json:"roles"`
	Stream   bool           `json:"stream"`
	Decision map[string]any `json:"decision"`
	Request  struct {
		Model    string           `json:"model"`
		Messages []map[string]any `json:"messages"`
	} `json:"request"`
}

// ReadMockLog reads the mock LLM's request log, oldest first.
func ReadMockLog(t testing.TB, path string) []MockRequest {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []MockRequest
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r MockRequest
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("mock-llm log line: %v", err)
		}
		out = append(out, r)
	}
	return out
}

// ---- fixture state (testutil.Fixture) and the sessions binary ----

// State copies the fixture state into a fresh temp dir ROOT as ROOT/state,
// with the config's logging.file (/home/claw/... in the fixture) moved to
// ROOT/logs/openclaw.log, and makes ROOT/home, a HOME for the peer. It
// returns both.
func State(t testing.TB) (state, home string) {
	t.Helper()
	root := t.TempDir()
	state, home = filepath.Join(root, "state"), filepath.Join(root, "home")
	if err := testutil.CopyTree(testutil.Fixture(t), state); err != nil {
		t.Fatal(err)
	}
	EditConfig(t, state, func(cfg map[string]any) {
		logging, _ := cfg["logging"].(map[string]any)
		if logging == nil {
			logging = map[string]any{}
			cfg["logging"] = logging
		}
		logging["file"] = filepath.Join(root, "logs", "openclaw.log")
	})
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	return state, home
}

// EditConfig rewrites STATE/openclaw.json (plain JSON, as in the fixture)
// after edit has changed it.
func EditConfig(t testing.TB, state string, edit func(cfg map[string]any)) {
	t.Helper()
	path := filepath.Join(state, "openclaw.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	edit(cfg)
	out, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, st.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}

// SetProviderURL sets models.providers.NAME.baseUrl in STATE/openclaw.json
// (to a StartMockLLM URL); the provider must exist.
func SetProviderURL(t testing.TB, state, name, baseURL string) {
	t.Helper()
	EditConfig(t, state, func(cfg map[string]any) {
		models, _ := cfg["models"].(map[string]any)
		providers, _ := models["providers"].(map[string]any)
		prov, _ := providers[name].(map[string]any)
		if prov == nil {
			t.Fatalf("%s/openclaw.json has no models.providers.%s", state, name)
		}
		prov["baseUrl"] = baseURL
	})
}

// BuildSessions builds cmd/sessions once per test process (the interop
// tests of a package share it: each build was a link of its own, minutes
// in all on a loaded machine) and returns the binary's path. Tests only
// run it, never change it.
func BuildSessions(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "sessions-interop-bin-")
		if err != nil {
			built.err = err.Error()
			return
		}
		bin := filepath.Join(dir, "sessions")
		cmd := exec.Command("go", "build", "-o", bin, "github.com/openclaw/sessions/cmd/sessions")
		cmd.Dir = testutil.Root(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Sprintf("go build: %v\n%s", err, out)
			return
		}
		built.bin = bin
	})
	if built.err != "" {
		t.Fatal(built.err)
	}
	return built.bin
}

// built is BuildSessions' one build.
var built struct {
	once sync.Once
	bin  string
	err  string
}

// Sessions runs `BIN --state-dir STATE ARGS...` and returns its stdout; a
// failure fails the test with its output. The run inherits no requester,
// state dir, sandbox, engine or delivery setting from the environment;
// env (K=V, applied last) sets what the test wants.
func Sessions(t testing.TB, bin, state string, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--state-dir", state}, args...)...)
	cmd.Env = append(os.Environ(), "OPENCLAW_SESSION_KEY=", "OPENCLAW_STATE_DIR=", "OPENCLAW_SANDBOXED=", "SESSIONS_ENGINE=", "SESSIONS_DELIVER=")
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sessions %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return out
}
