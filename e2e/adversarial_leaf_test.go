package e2e_test

// The leaf planter (issue 34, item 2): a copy of each bundled state (the
// 2026.1.30 JSON era and the 2026.9.6 SQLite era) with a distinct secret in
// every string leaf an agent could read (adversarial_leaf_plant_test.go),
// and every agent-facing command, in every format, and the MCP server's
// read tools and resources, run as agent:main:main and as agent:ops:main
// (agent-to-agent turned on in the planted config): no planted secret's
// middle, and no half of a split secret, may appear in anything they
// print. The planting walks the JSON, so a field added later is covered
// without touching the test.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil"
)

func TestAdversarialLeafPlanter(t *testing.T) {
	eras := []struct {
		name, fixture, mainTranscript string
		plant                         func(*planter, *testing.T, string)
	}{
		{"1.30", "state-2026.1.30", "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl", (*planter).plantJSONEra},
		{"9.6", "state-2026.9.6", "", (*planter).plantSQLiteEra},
	}
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			state := relState(t, root, era.fixture)
			p := &planter{}
			era.plant(p, t, state)
			t.Logf("%d secrets planted", len(p.sites))
			env := relEnv(root, "OPENCLAW_STATE_DIR="+state)
			leaks := &leakLog{sites: p.sites, by: map[string]map[string]bool{}}

			// The planted state reads, and the operator sees the secrets:
			// the planting took.
			op := relRun(t, env, 30*time.Second, "list", "--all-agents", "--json", "--limit", "all")
			if op.Code != 0 {
				t.Fatalf("the planted state does not read: list --all-agents: exit %d\n%s", op.Code, op.Stderr)
			}
			raw := relRun(t, env, 30*time.Second, "history", "main", "--raw", "--json", "--include-tools", "--limit", "1000")
			if !plantMarker.MatchString(op.Stdout) || !plantMarker.MatchString(raw.Stdout) {
				t.Fatalf("the operator sees no planted secret: the planting did not take\n%s", raw.Stderr)
			}
			var listing struct {
				Sessions []struct{ Key, AgentID string }
			}
			must(t, json.Unmarshal([]byte(op.Stdout), &listing))
			var keys []string
			for _, s := range listing.Sessions {
				keys = append(keys, s.Key)
			}

			requesters := []string{"agent:main:main", "agent:ops:main"}
			var jobs []leafJob
			for _, as := range requesters {
				jobs = append(jobs, leafCommands(as, keys, as == requesters[0])...)
			}
			// The operator's --redact: the masker agents get, on every
			// session, in every format of export.
			for _, k := range keys {
				for _, f := range []string{"markdown", "json", "jsonl", "html"} {
					jobs = append(jobs, leafJob{[]string{"--redact", "export", k, "--format", f, "--lineage"}, k == keys[0]})
				}
			}
			runLeafJobs(t, env, jobs, leaks)
			for _, as := range requesters {
				leafMCP(t, env, root, as, false, keys, leaks)
			}
			leafMCP(t, env, root, requesters[0], true, keys, leaks)
			if era.mainTranscript != "" {
				leafWatch(t, root, era.fixture, state, era.mainTranscript, leaks)
			}
			leaks.report(t)
		})
	}
}

// leafJob is one CLI invocation; must says it has to succeed (the
// commands the test could not pass by failing).
type leafJob struct {
	args []string
	must bool
}

// leafCommands is every read command an agent has, in every format, as
// requester as; full adds the per-session formats and queries the second
// requester only samples.
func leafCommands(as string, keys []string, full bool) []leafJob {
	var jobs []leafJob
	add := func(must bool, args ...string) {
		jobs = append(jobs, leafJob{append([]string{"--as", as}, args...), must})
	}
	add(true, "list", "--json")
	add(true, "list")
	add(true, "list", "--messages", "5", "--json")
	add(false, "list", "--messages", "5")
	add(false, "list", "--all-agents", "--json", "--messages", "20")
	add(false, "list", "--all-agents", "--messages", "20")
	add(true, "history", "main", "--json", "--include-tools", "--limit", "1000")
	for _, f := range []string{"markdown", "json", "jsonl", "html"} {
		add(true, "export", "main", "--format", f, "--lineage")
	}
	for _, k := range keys {
		add(false, "history", k, "--json", "--limit", "1000")
		add(false, "history", k, "--raw", "--json", "--include-tools", "--limit", "1000")
		add(false, "show", k, "--json")
		if full {
			for _, f := range []string{"markdown", "json", "jsonl", "html"} {
				add(false, "export", k, "--format", f)
			}
			add(false, "history", k, "--raw", "--limit", "1000")
			add(false, "history", k, "--format", "markdown", "--include-tools", "--limit", "1000")
			add(false, "history", k, "--limit", "1000")
			add(false, "history", k, "--include-tools", "--limit", "1000")
			add(false, "show", k)
		}
	}
	queries := [][]string{
		{plantHead}, {"LfA"}, {"LfB"}, {plantTail}, {"-i", "hello"}, {"--regex", "ghp_Q7Lf[AB][0-9]+"}, {"mmLfB"},
		{"--regex", "Lf[AB]"}, {"lorem"},
	}
	for i, q := range queries {
		base := append([]string{"search"}, q...)
		add(false, append(append([]string{}, base...), "--include-tools", "--include-archived", "--all-agents", "--json", "--limit", "all")...)
		if full || i == 0 {
			add(false, append(append([]string{}, base...), "--include-tools", "--include-archived", "--all-agents", "-C", "2")...)
			add(false, append(append([]string{}, base...), "--json")...)
		}
	}
	add(true, "runs", "--json")
	add(false, "runs")
	add(false, "runs", "--tree")
	add(false, "runs", "--tree", "--json")
	add(false, "runs", "--source", "all", "--json")
	add(false, "runs", "--source", "openclaw")
	add(false, "wait", "7e1f0000-0000-4000-8000-000000000001", "--timeout", "1", "--json")
	add(false, "wait", "7e1f0000-0000-4000-8000-000000000002", "--timeout", "1")
	add(true, "usage", "--json")
	add(false, "usage")
	add(false, "usage", "--all-agents", "--by", "model,provider", "--json")
	add(false, "usage", "--all-agents", "--by", "session,channel")
	add(false, "metrics")
	add(false, "metrics", "--per-session-top", "5")
	add(false, "agents")
	add(false, "agents", "--json")
	add(false, "doctor", "--json")
	return jobs
}

// runLeafJobs runs the jobs, four at a time, and checks their output.
func runLeafJobs(t *testing.T, env []string, jobs []leafJob, leaks *leakLog) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := relRun(t, env, 60*time.Second, j.args...)
			what := strings.Join(j.args, " ")
			if r.Hung {
				t.Errorf("sessions %s: hung", what)
			}
			if r.Code != 0 {
				t.Logf("sessions %s: exit %d: %s", what, r.Code, firstLine(r.Stderr))
			}
			if j.must && r.Code != 0 {
				t.Errorf("sessions %s: exit %d (it must read the planted state):\n%s", what, r.Code, r.Stderr)
			}
			leaks.check("sessions "+what+" (stdout)", r.Stdout)
			leaks.check("sessions "+what+" (stderr)", r.Stderr)
		}()
	}
	wg.Wait()
}

// leakLog gathers the planted secrets seen in outputs.
type leakLog struct {
	sites []plantSite
	mu    sync.Mutex
	by    map[string]map[string]bool // leaked site → outputs
}

// check records every planted marker in out, seen in the output what.
func (l *leakLog) check(what, out string) {
	for _, m := range plantMarker.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		if n >= len(l.sites) {
			continue
		}
		site := l.sites[n].String()
		if l.sites[n].Split {
			site = map[string]string{"A": "first", "B": "second"}[m[1]] + " half of " + site
		}
		l.mu.Lock()
		if l.by[site] == nil {
			l.by[site] = map[string]bool{}
		}
		l.by[site][what] = true
		l.mu.Unlock()
	}
}

// leafShapes turn a planted site into the shape of its field: which
// session, event, run or array element left out.
var leafShapes = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl(\.[a-z]+\.[^:]*)?:\d+`), "TRANSCRIPT.jsonl:LINE"},
	{regexp.MustCompile(`\[[0-9a-f-]{36}#\d+\]`), "[SESSION#SEQ]"},
	{regexp.MustCompile(`\[agent:[^\]]*\]`), "[KEY]"},
	{regexp.MustCompile(`runs/7e1f[0-9a-f-]{32}\.json`), "runs/RUN.json"},
	{regexp.MustCompile(`\.runs\.[0-9a-f-]{36}\.`), ".runs.RUN."},
	{regexp.MustCompile(`\[\d+\]`), "[]"},
}

// report fails once per leaked site (one output named, the count of the
// others), then logs the leaks by the shape of their field (indexes and
// sessions left out), so that a reader sees which fields leak where.
func (l *leakLog) report(t *testing.T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	sites := make([]string, 0, len(l.by))
	for s := range l.by {
		sites = append(sites, s)
	}
	sort.Strings(sites)
	shapes := map[string]map[string]bool{}
	for _, s := range sites {
		outs := make([]string, 0, len(l.by[s]))
		for o := range l.by[s] {
			outs = append(outs, o)
		}
		sort.Strings(outs)
		t.Errorf("%s: secret planted at %s leaked (and through %d other outputs)", outs[0], s, len(outs)-1)
		shape := s
		for _, r := range leafShapes {
			shape = r.re.ReplaceAllString(shape, r.with)
		}
		if shapes[shape] == nil {
			shapes[shape] = map[string]bool{}
		}
		for _, o := range outs {
			shapes[shape][leafCommandShape(o)] = true
		}
	}
	if len(sites) == 0 {
		return
	}
	var b strings.Builder
	names := make([]string, 0, len(shapes))
	for s := range shapes {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		cmds := make([]string, 0, len(shapes[s]))
		for c := range shapes[s] {
			cmds = append(cmds, c)
		}
		sort.Strings(cmds)
		fmt.Fprintf(&b, "  %s\n      through: %s\n", s, strings.Join(cmds, "; "))
	}
	t.Logf("%d planted secrets leaked; by field:\n%s", len(sites), b.String())
}

// leafCommandShape is an output's name without its requester, session
// key, query and values: the command and its format flags, or the MCP tool
// and its switches.
func leafCommandShape(o string) string {
	if rest, ok := strings.CutPrefix(o, "mcp "); ok {
		transport := "mcp "
		if r, ok := strings.CutPrefix(rest, "--http "); ok {
			rest, transport = r, "mcp --http "
		}
		f := strings.SplitN(strings.TrimPrefix(rest, "--as "), " ", 3)
		if len(f) < 2 {
			return o
		}
		shape := transport + f[1]
		if len(f) == 3 {
			for _, sw := range []string{"includeTools", "messageLimit", "tree", "regex", "by"} {
				if strings.Contains(f[2], `"`+sw+`"`) {
					shape += " " + sw
				}
			}
		}
		return shape
	}
	f := strings.Fields(o)
	shape := []string{}
	for i := 0; i < len(f); i++ {
		switch w := f[i]; {
		case w == "--as":
			i++
		case i == 3 && strings.HasPrefix(f[0], "sessions"):
			shape = append(shape, w) // the verb
		case w == "--json", w == "--raw", w == "--include-tools", w == "--tree", w == "--runs", w == "--regex",
			w == "(stdout)", w == "(stderr)":
			shape = append(shape, w)
		case w == "--format", w == "--messages", w == "-C", w == "--by", w == "--source":
			shape = append(shape, w, f[i+1])
			i++
		case i == 0:
			shape = append(shape, w)
		}
	}
	return strings.Join(shape, " ")
}

// mcpStdio is a JSON-RPC client of `sessions mcp` over stdio.
type mcpStdio struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan string
	stderr *testutil.SyncBuffer
	id     int
}

func startMCP(t *testing.T, env []string, args ...string) *mcpStdio {
	t.Helper()
	cmd := exec.Command(relExe(t), args...)
	cmd.Args[0] = "sessions"
	cmd.Env = env
	in, err := cmd.StdinPipe()
	must(t, err)
	out, err := cmd.StdoutPipe()
	must(t, err)
	c := &mcpStdio{t: t, cmd: cmd, in: in, lines: make(chan string, 64), stderr: &testutil.SyncBuffer{}}
	cmd.Stderr = c.stderr
	must(t, cmd.Start())
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		close(done)
	}()
	t.Cleanup(func() {
		_ = in.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
	})
	c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "leaf-planter", "version": "1"}})
	c.notify("notifications/initialized")
	return c
}

func (c *mcpStdio) notify(method string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("mcp %s: %v", method, err)
	}
}

// call sends a request and returns the raw response line (its result,
// structuredContent and text alike).
func (c *mcpStdio) call(method string, params any) string {
	c.t.Helper()
	c.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("mcp %s: %v\n%s", method, err, c.stderr.String())
	}
	timeout := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("mcp server ended before answering %s; stderr:\n%s", method, c.stderr.String())
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal([]byte(line), &m) == nil && string(m.ID) == strconv.Itoa(c.id) {
				return line
			}
		case <-timeout:
			c.t.Fatalf("mcp %s: no answer after 60s; stderr:\n%s", method, c.stderr.String())
		}
	}
}

// mcpCaller sends one JSON-RPC request and returns the response as
// received (the result's structuredContent and text alike).
type mcpCaller interface {
	call(method string, params any) string
	stderrText() string
}

func (c *mcpStdio) stderrText() string { return c.stderr.String() }

// mcpHTTP is a client of `sessions mcp --http` (streamable HTTP, bearer
// token, its session id).
type mcpHTTP struct {
	t          *testing.T
	url, token string
	session    string
	id         int
	stderr     *testutil.SyncBuffer
	client     *http.Client
}

var mcpURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`)

func startMCPHTTP(t *testing.T, env []string, root string, args ...string) *mcpHTTP {
	t.Helper()
	token := filepath.Join(root, "mcp.token")
	must(t, os.WriteFile(token, []byte(strings.Repeat("0123456789abcdef", 4)), 0o600))
	args = append(args, "--http", "127.0.0.1:0", "--token-file", token, "--log-level", "info")
	cmd := exec.Command(relExe(t), args...)
	cmd.Args[0] = "sessions"
	cmd.Env = env
	c := &mcpHTTP{t: t, token: strings.Repeat("0123456789abcdef", 4), stderr: &testutil.SyncBuffer{}, client: &http.Client{Timeout: 60 * time.Second}}
	cmd.Stderr = c.stderr
	must(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for c.url = mcpURL.FindString(c.stderr.String()); c.url == ""; c.url = mcpURL.FindString(c.stderr.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("sessions %s: not serving after 20s:\n%s", strings.Join(args, " "), c.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "leaf-planter", "version": "1"}})
	c.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

func (c *mcpHTTP) stderrText() string { return c.stderr.String() }

func (c *mcpHTTP) post(msg map[string]any) (string, http.Header) {
	c.t.Helper()
	b, _ := json.Marshal(msg)
	req, err := http.NewRequest("POST", c.url, bytes.NewReader(b))
	must(c.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.token)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatalf("mcp --http %v: %v\n%s", msg["method"], err, c.stderr.String())
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	must(c.t, err)
	if resp.StatusCode/100 != 2 {
		c.t.Fatalf("mcp --http %v: %s\n%s", msg["method"], resp.Status, body)
	}
	return string(body), resp.Header
}

func (c *mcpHTTP) call(method string, params any) string {
	c.t.Helper()
	c.id++
	body, h := c.post(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if c.session == "" {
		c.session = h.Get("Mcp-Session-Id")
	}
	// an SSE stream: the response is the data line whose id is ours
	if !strings.HasPrefix(strings.TrimSpace(body), "{") {
		for _, line := range strings.Split(body, "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id":`+strconv.Itoa(c.id)+`,`) {
				return d
			}
		}
		c.t.Fatalf("mcp --http %s: no response in the stream:\n%s", method, body)
	}
	return body
}

// leafMCP calls every read tool of `sessions mcp --as as` (over stdio, or
// over HTTP with useHTTP) and reads every resource it lists.
func leafMCP(t *testing.T, env []string, root, as string, useHTTP bool, keys []string, leaks *leakLog) {
	var c mcpCaller
	name := "mcp --as " + as
	if useHTTP {
		c = startMCPHTTP(t, env, root, "mcp", "--as", as)
		name = "mcp --http --as " + as
	} else {
		c = startMCP(t, env, "mcp", "--as", as)
	}
	tool := func(tool string, args map[string]any) string {
		a, _ := json.Marshal(args)
		out := c.call("tools/call", map[string]any{"name": tool, "arguments": args})
		leaks.check(fmt.Sprintf("%s %s %s", name, tool, a), out)
		return out
	}
	// these must answer (a server that refuses everything leaks nothing)
	for _, out := range []string{
		tool("sessions_list", map[string]any{}),
		tool("sessions_history", map[string]any{"sessionKey": "agent:main:main", "includeTools": true}),
		tool("sessions_export", map[string]any{"sessionKey": "agent:main:main"}),
		tool("sessions_runs", map[string]any{}),
		tool("sessions_usage", map[string]any{}),
	} {
		if !strings.Contains(out, `"structuredContent"`) || strings.Contains(out, `"isError":true`) {
			t.Errorf("%s: a read tool failed on the planted state: %.500s", name, out)
		}
	}
	tool("sessions_list", map[string]any{"messageLimit": 5})
	tool("sessions_list", map[string]any{"messageLimit": 20, "allAgents": true})
	for _, k := range append([]string{"main"}, keys...) {
		tool("sessions_history", map[string]any{"sessionKey": k, "limit": 1000})
		tool("sessions_history", map[string]any{"sessionKey": k, "limit": 1000, "includeTools": true})
		tool("sessions_show", map[string]any{"sessionKey": k})
		tool("sessions_export", map[string]any{"sessionKey": k})
	}
	for _, q := range []string{plantHead, "LfA", "LfB", plantTail, "mmLfB", "hello", "lorem"} {
		tool("sessions_search", map[string]any{"query": q, "includeTools": true, "includeArchived": true, "allAgents": true, "limit": 1000})
		tool("sessions_search", map[string]any{"query": q})
	}
	tool("sessions_search", map[string]any{"query": "Lf[AB][0-9]+", "regex": true, "includeTools": true, "allAgents": true})
	tool("sessions_search", map[string]any{"query": "HELLO", "ignoreCase": true, "includeTools": true, "allAgents": true})
	tool("sessions_runs", map[string]any{"tree": true})
	tool("sessions_runs", map[string]any{"source": "all"})
	tool("sessions_wait", map[string]any{"runId": "7e1f0000-0000-4000-8000-000000000001", "timeoutSeconds": 1})
	tool("sessions_wait", map[string]any{"runId": "7e1f0000-0000-4000-8000-000000000002", "timeoutSeconds": 1})
	tool("sessions_usage", map[string]any{"by": []string{"model", "provider"}, "allAgents": true})
	tool("sessions_usage", map[string]any{"by": []string{"session", "channel"}, "allAgents": true})
	tool("sessions_doctor", map[string]any{})
	leaks.check(name+" tools/list", c.call("tools/list", map[string]any{}))
	leaks.check(name+" resources/templates/list", c.call("resources/templates/list", map[string]any{}))
	cursor := ""
	for page := 0; page < 20; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		out := c.call("resources/list", params)
		leaks.check(name+" resources/list", out)
		var res struct {
			Result struct {
				Resources  []struct{ URI string }
				NextCursor string
			}
		}
		must(t, json.Unmarshal([]byte(out), &res))
		for _, r := range res.Result.Resources {
			leaks.check(name+" resources/read "+r.URI, c.call("resources/read", map[string]any{"uri": r.URI}))
		}
		if cursor = res.Result.NextCursor; cursor == "" {
			break
		}
	}
	leaks.check(name+" (stderr)", c.stderrText())
}

// leafWatch runs `watch --json` and `watch` as agent:main:main on a fresh
// copy of the fixture and moves the planted store into it, and appends
// planted events to the main session's transcript: the changes it prints
// are the planted entries' fields and messages.
func leafWatch(t *testing.T, root, fixture, planted, transcript string, leaks *leakLog) {
	wroot := filepath.Join(root, "watch")
	must(t, os.MkdirAll(wroot, 0o755))
	wstate := relState(t, wroot, fixture)
	must(t, os.WriteFile(filepath.Join(wstate, "openclaw.json"), leafRead(t, filepath.Join(planted, "openclaw.json")), 0o600))
	env := relEnv(wroot, "OPENCLAW_STATE_DIR="+wstate)
	type watcher struct {
		cmd           *exec.Cmd
		out, stderr   *testutil.SyncBuffer
		what          string
		exited        chan struct{}
		waitErr       error
		interruptSent bool
	}
	var ws []*watcher
	for _, format := range [][]string{{"--json"}, {}} {
		args := append([]string{"--as", "agent:main:main", "watch", "--all-agents", "--runs", "--log-level", "debug"}, format...)
		w := &watcher{out: &testutil.SyncBuffer{}, stderr: &testutil.SyncBuffer{}, what: "sessions " + strings.Join(args, " "), exited: make(chan struct{})}
		w.cmd = exec.Command(relExe(t), args...)
		w.cmd.Args[0] = "sessions"
		w.cmd.Env = env
		w.cmd.Stdout, w.cmd.Stderr = w.out, w.stderr
		must(t, w.cmd.Start())
		go func() { w.waitErr = w.cmd.Wait(); close(w.exited) }()
		t.Cleanup(func() {
			_ = w.cmd.Process.Kill()
			<-w.exited
		})
		ws = append(ws, w)
	}
	ready := time.Now().Add(20 * time.Second)
	for _, w := range ws {
		for !strings.Contains(w.stderr.String(), "watching for changes") {
			if time.Now().After(ready) {
				t.Fatalf("%s: not watching after 20s:\n%s", w.what, w.stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// the planted sessions.json of each agent, renamed into place as
	// OpenClaw writes it; the planted run records; planted events appended
	for _, agent := range []string{"main", "ops"} {
		rel := filepath.Join("agents", agent, "sessions", "sessions.json")
		tmp := filepath.Join(wstate, rel+".tmp")
		must(t, os.WriteFile(tmp, leafRead(t, filepath.Join(planted, rel)), 0o600))
		must(t, os.Rename(tmp, filepath.Join(wstate, rel)))
	}
	lines := strings.Split(strings.TrimRight(string(leafRead(t, filepath.Join(planted, transcript))), "\n"), "\n")
	f, err := os.OpenFile(filepath.Join(wstate, transcript), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(strings.Join(lines[len(lines)-4:], "\n") + "\n")
	must(t, err)
	must(t, f.Close())
	must(t, os.MkdirAll(filepath.Join(wstate, "sessions-cli"), 0o700))
	relCopyTree(t, filepath.Join(planted, "sessions-cli", "runs"), filepath.Join(wstate, "sessions-cli", "runs"))
	// until both printed a message event (or 15 s), then Ctrl-C
	until := time.Now().Add(15 * time.Second)
	for _, w := range ws {
		for !strings.Contains(w.out.String(), "message") && time.Now().Before(until) {
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond) // the rest of the burst
		_ = w.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-w.exited:
		case <-time.After(10 * time.Second):
			t.Errorf("%s: still running 10s after SIGINT", w.what)
		}
		if !strings.Contains(w.out.String(), "message") {
			t.Errorf("%s: printed no message event in 15s:\n%s", w.what, w.out.String())
		}
		leaks.check(w.what+" (stdout)", w.out.String())
		leaks.check(w.what+" (stderr)", w.stderr.String())
	}
}

func leafRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return b
}
