//go:build interop

// `sessions mcp` against a client nobody here wrote: the MCP Inspector's
// CLI mode (`npx @modelcontextprotocol/inspector --cli`, pinned below),
// installed once with npm into the user cache dir and run with the node on
// $PATH. Over stdio and over streamable HTTP (with the bearer token, and
// refused without it) it lists our tools with their annotations, calls
// sessions_list and sessions_history on copies of both fixtures (the
// structured results are what the CLI prints with --json), and gets a tool
// error for an unknown session. Needs npm and its registry (the first run
// only), not the OpenClaw peer; skips with one line without them.
// Run: make interop (or go test -tags interop -run TestInteropMCPInspector
// -count=1 ./e2e/).

package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// inspectorVersion is the Inspector the test runs. It declares Node >=
// 22.19 but its CLI mode runs on Node 20 (npm only warns), which CI has;
// 1.x, the line before, is deprecated (security fixes only).
const inspectorVersion = "2.12.0"

var (
	inspectorOnce sync.Once
	inspectorBin  string
	inspectorSkip string
	inspectorErr  error
)

// npmUnreachable matches npm's errors for a registry it cannot reach.
var npmUnreachable = regexp.MustCompile(`(?m)\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ERR_SOCKET_TIMEOUT|E5\d\d|E403|E401|CERT_\w+|SELF_SIGNED_CERT\w*|UNABLE_TO_\w+)\b`)

// inspector returns the Inspector's bin script (run it with node),
// installing the pinned version on first use into
// <user cache dir>/sessions-test/mcp-inspector-VERSION; it skips the test
// with one line when node or npm is missing or the registry unreachable.
func inspector(t *testing.T) string {
	t.Helper()
	inspectorOnce.Do(func() {
		for _, tool := range []string{"node", "npm"} {
			if _, err := exec.LookPath(tool); err != nil {
				inspectorSkip = fmt.Sprintf("MCP Inspector unavailable: %s not found on $PATH", tool)
				return
			}
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir := filepath.Join(cache, "sessions-test", "mcp-inspector-"+inspectorVersion)
		if bin, err := inspectorBinIn(dir); err == nil {
			inspectorBin = bin
			return
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			inspectorErr = err
			return
		}
		// into a fresh prefix, moved into place once complete: an
		// interrupted install leaves nothing half-done
		tmp, err := os.MkdirTemp(filepath.Dir(dir), ".mcp-inspector-")
		if err != nil {
			inspectorErr = err
			return
		}
		defer os.RemoveAll(tmp)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", tmp, "--no-audit", "--no-fund", "--ignore-scripts",
			"--save-exact", "--loglevel", "error", "--fetch-retry-maxtimeout", "10000", "@modelcontextprotocol/inspector@"+inspectorVersion)
		out, err := cmd.CombinedOutput()
		if err != nil {
			if m := npmUnreachable.Find(out); m != nil || ctx.Err() != nil {
				inspectorSkip = fmt.Sprintf("MCP Inspector unavailable: npm install @modelcontextprotocol/inspector@%s could not reach the registry (%s)", inspectorVersion, orElse(string(m), "timed out"))
				return
			}
			inspectorErr = fmt.Errorf("npm install @modelcontextprotocol/inspector@%s: %v\n%s", inspectorVersion, err, out)
			return
		}
		if _, err := inspectorBinIn(tmp); err != nil {
			inspectorErr = fmt.Errorf("npm install @modelcontextprotocol/inspector@%s: %v\n%s", inspectorVersion, err, out)
			return
		}
		// a failed rename: another run installed it meanwhile
		_ = os.Rename(tmp, dir)
		inspectorBin, inspectorErr = inspectorBinIn(dir)
	})
	if inspectorSkip != "" {
		t.Skip(inspectorSkip)
	}
	if inspectorErr != nil {
		t.Fatal(inspectorErr)
	}
	return inspectorBin
}

// inspectorBinIn is the mcp-inspector bin script of the package
// installed under the npm prefix dir.
func inspectorBinIn(dir string) (string, error) {
	pkg := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector")
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return "", err
	}
	var meta struct {
		Version string            `json:"version"`
		Bin     map[string]string `json:"bin"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return "", err
	}
	if meta.Version != inspectorVersion || meta.Bin["mcp-inspector"] == "" {
		return "", fmt.Errorf("%s: version %s, bin %v", pkg, meta.Version, meta.Bin)
	}
	bin := filepath.Join(pkg, filepath.FromSlash(meta.Bin["mcp-inspector"]))
	if _, err := os.Stat(bin); err != nil {
		return "", err
	}
	return bin, nil
}

func orElse(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// inspectorRun runs `node BIN --cli ARGS...` with env and returns its exit
// code, stdout and stderr.
func inspectorRun(t *testing.T, bin string, env []string, args ...string) (int, []byte, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{bin, "--cli"}, args...)...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.Bytes(), stderr.String()
	case errors.As(err, &ee) && ctx.Err() == nil:
		return ee.ExitCode(), stdout.Bytes(), stderr.String()
	default:
		t.Fatalf("inspector %s: %v\n%s%s", strings.Join(args, " "), err, stdout.Bytes(), stderr.String())
		return 0, nil, ""
	}
}

// inspectorExitToolError is the Inspector CLI's exit code for a tool
// result with isError (it still prints the result on stdout).
const inspectorExitToolError = 5

// inspectorJSON runs the Inspector, which must exit with code, and decodes
// its answer.
func inspectorJSON(t *testing.T, bin string, env []string, code int, v any, args ...string) {
	t.Helper()
	got, out, errOut := inspectorRun(t, bin, env, args...)
	if got != code {
		t.Fatalf("inspector %s: exit %d, want %d\n%s%s", strings.Join(args, " "), got, code, out, errOut)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("inspector %s: not JSON: %v\n%.2000s", strings.Join(args, " "), err, out)
	}
}

type inspectorTool struct {
	Name         string         `json:"name"`
	Description  string         `json:"description"`
	InputSchema  map[string]any `json:"inputSchema"`
	OutputSchema map[string]any `json:"outputSchema"`
	Annotations  *struct {
		ReadOnlyHint    *bool `json:"readOnlyHint"`
		DestructiveHint *bool `json:"destructiveHint"`
		IdempotentHint  *bool `json:"idempotentHint"`
		OpenWorldHint   *bool `json:"openWorldHint"`
	} `json:"annotations"`
}

type inspectorResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

// mcpTarget is how the Inspector reaches one server: the arguments before
// --method.
type mcpTarget struct {
	name string
	args []string
}

func TestInteropMCPInspector(t *testing.T) {
	t.Parallel() // free ports and temp dirs only: beside the other tests
	insp := inspector(t)
	bin := peertest.BuildSessions(t)
	for _, fx := range []string{"state-2026.1.30", "state-2026.9.6"} {
		t.Run(fx, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			state := filepath.Join(root, "state")
			if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", fx), state); err != nil {
				t.Fatal(err)
			}
			// the Inspector and the servers it starts: a HOME of their own
			// (the stdio server inherits HOME and PATH from it)
			env := append(os.Environ(), "HOME="+root, "XDG_CONFIG_HOME="+filepath.Join(root, "xdg-config"),
				"XDG_STATE_HOME="+filepath.Join(root, "xdg-state"), "XDG_CACHE_HOME="+filepath.Join(root, "xdg-cache"),
				"OPENCLAW_SESSION_KEY=", "OPENCLAW_STATE_DIR=", "OPENCLAW_GATEWAY_URL=", "OPENCLAW_GATEWAY_TOKEN=", "SESSIONS_ENGINE=")
			const token = "inspector-test-token-0123456789abc"
			tokenFile := filepath.Join(root, "mcp.token")
			if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			url := startHTTPServer(t, bin, env, state, tokenFile)
			targets := []mcpTarget{
				{"stdio", []string{bin, "--state-dir", state, "mcp"}},
				{"http", []string{url, "--transport", "http", "--header", "Authorization: Bearer " + token}},
			}
			for _, tg := range targets {
				t.Run(tg.name, func(t *testing.T) {
					inspectorChecks(t, insp, bin, env, state, tg)
				})
			}
			// without the token, or with another, the HTTP server refuses
			// the Inspector before anything is served (once is enough): the
			// 401 makes it want an OAuth sign-in, which it cannot do here
			if fx != "state-2026.1.30" {
				return
			}
			for _, hdr := range [][]string{nil, {"--header", "Authorization: Bearer not-" + token}} {
				args := append([]string{url, "--transport", "http"}, hdr...)
				code, out, errOut := inspectorRun(t, insp, env, append(args, "--method", "tools/list")...)
				if code == 0 || bytes.Contains(out, []byte("sessions_list")) || !strings.Contains(errOut, "auth_required") {
					t.Errorf("inspector %v without the right token: exit %d\n%s%s", hdr, code, out, errOut)
				}
			}
		})
	}
}

// inspectorChecks lists and calls the tools through the Inspector on one
// target.
func inspectorChecks(t *testing.T, insp, bin string, env []string, state string, tg mcpTarget) {
	method := func(args ...string) []string { return append(slices.Clone(tg.args), args...) }
	var list struct {
		Tools []inspectorTool `json:"tools"`
	}
	inspectorJSON(t, insp, env, 0, &list, method("--method", "tools/list")...)
	reads := []string{"sessions_doctor", "sessions_export", "sessions_history", "sessions_list", "sessions_runs", "sessions_search", "sessions_show", "sessions_usage", "sessions_wait"}
	writes := []string{"sessions_archive", "sessions_delete", "sessions_patch", "sessions_reset", "sessions_send", "sessions_spawn"}
	destructive := []string{"sessions_archive", "sessions_delete", "sessions_patch", "sessions_reset"}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		a := tl.Annotations
		if tl.Description == "" || tl.InputSchema["type"] != "object" || tl.OutputSchema["type"] != "object" {
			t.Errorf("%s: description or schemas missing: %+v", tl.Name, tl)
		}
		if a == nil || a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations missing: %+v", tl.Name, a)
			continue
		}
		if *a.ReadOnlyHint != slices.Contains(reads, tl.Name) || *a.DestructiveHint != slices.Contains(destructive, tl.Name) || *a.OpenWorldHint {
			t.Errorf("%s: readOnlyHint %v destructiveHint %v openWorldHint %v", tl.Name, *a.ReadOnlyHint, *a.DestructiveHint, *a.OpenWorldHint)
		}
	}
	slices.Sort(names)
	if want := slices.Sorted(slices.Values(append(slices.Clone(reads), writes...))); !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	// tools/call: each structured result is the CLI's --json document on
	// the same state (history's with --redact: a tool's answer goes to an
	// agent, so it is masked and capped as 9.6's sessions_history), and its
	// text block the same document
	for _, c := range []struct {
		tool string
		args []string // --tool-arg key=value (values parsed as JSON by the Inspector)
		cli  []string
	}{
		{"sessions_list", []string{"allAgents=true"}, []string{"list", "--all-agents"}},
		{"sessions_history", []string{"sessionKey=agent:main:telegram:group:-100123", "limit=3", "includeTools=true"}, []string{"history", "agent:main:telegram:group:-100123", "--limit", "3", "--include-tools", "--redact"}},
	} {
		args := method("--method", "tools/call", "--tool-name", c.tool)
		for _, a := range c.args {
			args = append(args, "--tool-arg", a)
		}
		var res inspectorResult
		inspectorJSON(t, insp, env, 0, &res, args...)
		if res.IsError || res.StructuredContent == nil || len(res.Content) == 0 {
			t.Errorf("%s %v: %+v", c.tool, c.args, res)
			continue
		}
		var want, fromText any
		decodeJSON(t, peertest.Sessions(t, bin, state, nil, append(c.cli, "--json")...), &want)
		if err := json.Unmarshal([]byte(res.Content[0].Text), &fromText); err != nil {
			t.Errorf("%s %v: the text block is not the JSON document: %v", c.tool, c.args, err)
		}
		got := jsonRoundTrip(t, res.StructuredContent)
		if !jsonEqual(got, jsonRoundTrip(t, want)) || !jsonEqual(got, jsonRoundTrip(t, fromText)) {
			t.Errorf("%s %v through the Inspector:\n got %v\nwant %v", c.tool, c.args, got, want)
		}
		if rows, _ := res.StructuredContent["sessions"].([]any); c.tool == "sessions_list" && len(rows) == 0 {
			t.Errorf("%s %v: no session", c.tool, c.args)
		}
		if msgs, _ := res.StructuredContent["messages"].([]any); c.tool == "sessions_history" && len(msgs) == 0 {
			t.Errorf("%s %v: no message", c.tool, c.args)
		}
	}

	// a tool error: an unknown session is not found (exit 4), as the CLI says
	var res inspectorResult
	inspectorJSON(t, insp, env, inspectorExitToolError, &res, method("--method", "tools/call", "--tool-name", "sessions_history", "--tool-arg", "sessionKey=no-such-session")...)
	if !res.IsError || len(res.Content) < 2 || !strings.HasPrefix(res.Content[0].Text, "not found (exit 4): ") {
		t.Errorf("sessions_history of an unknown session: %+v", res)
	} else {
		var doc map[string]any
		if err := json.Unmarshal([]byte(res.Content[1].Text), &doc); err != nil || doc["status"] != "error" || !strings.Contains(fmt.Sprint(doc["error"]), "no-such-session") {
			t.Errorf("the error document: %s (%v)", res.Content[1].Text, err)
		}
	}
}

func jsonRoundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

var servingURL = regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`)

// startHTTPServer starts `sessions --state-dir STATE mcp --http
// 127.0.0.1:0 --token-file F` (info log on, to learn its port) and stops it
// with SIGTERM when the test ends; it returns the server's URL.
func startHTTPServer(t *testing.T, bin string, env []string, state, tokenFile string) string {
	t.Helper()
	cmd := exec.Command(bin, "--state-dir", state, "--log-level", "info", "mcp", "--http", "127.0.0.1:0", "--token-file", tokenFile)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	urlc := make(chan string, 1)
	var logged bytes.Buffer
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			logged.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := servingURL.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("sessions mcp --http after SIGINT: %v", err)
			}
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Error("sessions mcp --http did not stop on SIGINT")
		}
	})
	select {
	case u := <-urlc:
		return u
	case err := <-done:
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("sessions mcp --http exited: %v\n%s", err, logged.String())
	case <-time.After(2 * time.Minute):
		t.Fatal("sessions mcp --http did not say where it listens")
	}
	return ""
}
