package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/mcpserver"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/runstate"
)

var fixtures = []string{"state-2026.1.30", "state-2026.9.6"}

// now is the clock of every test: the CLI's and the server's answers are
// compared, so they must agree on it.
func now() time.Time { return time.UnixMilli(1795236254224 + 90*60*1000) }

// state is a copy of a fixture state dir with its isolated environment:
// the server and the CLI both work on it.
type state struct {
	t    *testing.T
	tmp  string
	dir  string
	vars map[string]string
}

func newState(t *testing.T, fixture string) *state {
	t.Helper()
	rs := runstate.New(t, fixture, map[string]string{"NO_COLOR": "1"})
	return &state{t: t, tmp: rs.Tmp, dir: rs.Dir, vars: rs.Vars}
}

// withRunner lets the runs the test starts be performed: by a real
// detached runner, the sessions binary.
func (s *state) withRunner() *state {
	runstate.WithRunner(s.t)
	return s
}

func (s *state) getenv(k string) string { return s.vars[k] }

// cli runs the CLI on this state and returns its exit code and stdout.
func (s *state) cli(args ...string) (int, string) {
	s.t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IO: ios, Env: config.Env{Getenv: s.getenv, Home: s.tmp}, Flags: &cmdutil.GlobalFlags{}, Now: now, Getenv: s.getenv}
	code := cli.Run(f, append([]string{"--state-dir", s.dir}, args...))
	if code != 0 && out.Len() == 0 {
		s.t.Logf("sessions %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return code, out.String()
}

// cliNoState runs the CLI without --state-dir (through a gateway).
func (s *state) cliNoState(args ...string) (int, string) {
	s.t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IO: ios, Env: config.Env{Getenv: s.getenv, Home: s.tmp}, Flags: &cmdutil.GlobalFlags{}, Now: now, Getenv: s.getenv}
	code := cli.Run(f, args)
	if code != 0 {
		s.t.Logf("sessions %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return code, out.String()
}

// config is the server's operations configuration on this state.
func (s *state) config() ops.Config {
	return ops.Config{StateDir: s.dir, Env: config.Env{Getenv: s.getenv, Home: s.tmp}, Getenv: s.getenv, Now: now}
}

func (s *state) server(readOnly bool, mod ...func(*ops.Config)) *mcpserver.Server {
	c := s.config()
	for _, m := range mod {
		m(&c)
	}
	return mcpserver.New(mcpserver.Options{Ops: c, ReadOnly: readOnly})
}

// realTime runs the server on the real clock: the runs it starts are
// timed by their runners, which are.
func realTime(c *ops.Config) { c.Now = time.Now }

// transport connects a client to a server: in memory (as stdio does) or
// over streamable HTTP.
type transport struct {
	name    string
	connect func(t *testing.T, srv *mcpserver.Server, copts *mcp.ClientOptions) *mcp.ClientSession
}

var transports = []transport{{"memory", connectMemory}, {"http", connectHTTP}}

func connectMemory(t *testing.T, srv *mcpserver.Server, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); cancel(); <-done })
	return cs
}

const testToken = "s3cret-test-token"

// bearer adds the token (and an Origin, when set) to every request.
type bearer struct {
	token, origin string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	if b.origin != "" {
		r.Header.Set("Origin", b.origin)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func httpServer(t *testing.T, srv *mcpserver.Server) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(srv.Handler(testToken))
	t.Cleanup(hs.Close)
	return hs
}

func connectHTTPWith(t *testing.T, url string, b bearer, copts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	tr := &mcp.StreamableClientTransport{Endpoint: url + mcpserver.Path, HTTPClient: &http.Client{Transport: b}, MaxRetries: -1}
	return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(context.Background(), tr, nil)
}

func connectHTTP(t *testing.T, srv *mcpserver.Server, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	hs := httpServer(t, srv)
	cs, err := connectHTTPWith(t, hs.URL, bearer{token: testToken}, copts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool and returns its result (a protocol error fails the
// test: every failure must be a tool error).
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", name, args, err)
	}
	return res
}

// ok calls a tool that must succeed and returns its structured content.
func ok(t *testing.T, cs *mcp.ClientSession, name string, args any) map[string]any {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", name, args, text(res))
	}
	m, isMap := res.StructuredContent.(map[string]any)
	if !isMap {
		t.Fatalf("%s: structuredContent is %T", name, res.StructuredContent)
	}
	// the text block is the same document
	var fromText map[string]any
	if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil {
		t.Fatalf("%s: text is not the JSON document: %v", name, err)
	}
	if !sameJSON(m, fromText) {
		t.Fatalf("%s: text and structuredContent differ", name)
	}
	checkOutput(t, cs, name, m)
	return m
}

// outputSchemas are the tools' output schemas as a client sees them
// (tools/list), resolved, by client session.
var outputSchemas sync.Map // *mcp.ClientSession → map[string]*jsonschema.Resolved

// checkOutput fails the test when doc does not match the output schema the
// server lists for the tool: the server does not check its answers at run
// time, every answer a test gets is checked here.
func checkOutput(t *testing.T, cs *mcp.ClientSession, name string, doc map[string]any) {
	t.Helper()
	v, ok := outputSchemas.Load(cs)
	if !ok {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		m := map[string]*jsonschema.Resolved{}
		for _, tl := range res.Tools {
			b, err := json.Marshal(tl.OutputSchema)
			if err != nil {
				t.Fatal(err)
			}
			var sch jsonschema.Schema
			if err := json.Unmarshal(b, &sch); err != nil {
				t.Fatalf("%s: output schema: %v", tl.Name, err)
			}
			r, err := sch.Resolve(nil)
			if err != nil {
				t.Fatalf("%s: output schema: %v", tl.Name, err)
			}
			m[tl.Name] = r
		}
		v, _ = outputSchemas.LoadOrStore(cs, m)
	}
	r := v.(map[string]*jsonschema.Resolved)[name]
	if r == nil {
		t.Fatalf("%s: no output schema listed", name)
	}
	var inst any = doc
	if err := r.Validate(&inst); err != nil {
		t.Fatalf("%s: the answer does not match its output schema: %v", name, err)
	}
}

// fails calls a tool that must fail with a tool error and returns its text.
func fails(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res := call(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s %v: want a tool error, got %s", name, args, text(res))
	}
	return text(res)
}

func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, isText := res.Content[0].(*mcp.TextContent); isText {
		return tc.Text
	}
	return fmt.Sprintf("%T", res.Content[0])
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// cliDoc is the JSON document the CLI prints for args (with --json).
func (s *state) cliDoc(args ...string) map[string]any {
	s.t.Helper()
	_, out := s.cli(append(args, "--json")...)
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		s.t.Fatalf("sessions %s --json: %v\n%s", strings.Join(args, " "), err, out)
	}
	return m
}

func sessionsBinary(t *testing.T) string { return testutil.SessionsBinary(t) }

func TestMain(m *testing.M) {
	// the search index: never in the user's cache dir
	cache, err := os.MkdirTemp("", "mcp-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	testutil.RemoveBinary()
	os.Exit(code)
}
