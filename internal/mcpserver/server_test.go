package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/runs"
)

var (
	readTools  = []string{"sessions_doctor", "sessions_export", "sessions_history", "sessions_list", "sessions_runs", "sessions_search", "sessions_show", "sessions_usage", "sessions_wait"}
	writeTools = []string{"sessions_archive", "sessions_delete", "sessions_patch", "sessions_reset", "sessions_send", "sessions_spawn"}
	// the writes that replace or remove, and those of them that repeated
	// change nothing more
	destructiveTools = []string{"sessions_archive", "sessions_delete", "sessions_patch", "sessions_reset"}
	idempotentWrites = []string{"sessions_delete"}
)

func toolNames(t *testing.T, cs *mcp.ClientSession) ([]string, map[string]*mcp.Tool) {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		byName[tl.Name] = tl
	}
	slices.Sort(names)
	return names, byName
}

// Every tool is listed with a description, both schemas and its
// annotations: a tool that reads says so, one that writes is not
// read-only, and only the writes that replace or remove are destructive.
func TestToolsListed(t *testing.T) {
	s := newState(t, fixtures[0])
	cs := connectMemory(t, s.server(false), nil)
	names, tools := toolNames(t, cs)
	want := slices.Sorted(slices.Values(append(slices.Clone(readTools), writeTools...)))
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	for name, tl := range tools {
		writes := slices.Contains(writeTools, name)
		if tl.Description == "" || tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: description, input or output schema missing", name)
		}
		for _, sc := range []struct {
			what string
			s    any
		}{{"input", tl.InputSchema}, {"output", tl.OutputSchema}} {
			b, _ := json.Marshal(sc.s)
			var doc struct {
				Properties map[string]map[string]any `json:"properties"`
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatalf("%s: %s schema: %v", name, sc.what, err)
			}
			for p, ps := range doc.Properties {
				if _, ok := ps["type"].(string); !ok && (sc.what == "input" || ps["type"] == nil) {
					t.Errorf("%s: %s property %s has no single type: %v", name, sc.what, p, ps["type"])
				}
				if items, ok := ps["items"].(map[string]any); ok && items["type"] == nil {
					t.Errorf("%s: %s property %s: items without a type", name, sc.what, p)
				}
			}
		}
		a := tl.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Fatalf("%s: annotations missing: %+v", name, a)
		}
		idempotent := !writes || slices.Contains(idempotentWrites, name)
		if a.ReadOnlyHint == writes || a.IdempotentHint != idempotent {
			t.Errorf("%s: readOnlyHint %v idempotentHint %v, writes %v", name, a.ReadOnlyHint, a.IdempotentHint, writes)
		}
		if *a.DestructiveHint != slices.Contains(destructiveTools, name) {
			t.Errorf("%s: destructiveHint %v", name, *a.DestructiveHint)
		}
	}
}

// Every reading tool's structuredContent is the document the CLI prints
// with --json (history: with --redact, as a tool's answer goes to an agent),
// on both eras and both transports.
func TestReadToolsAreTheCLIDocuments(t *testing.T) {
	for _, fx := range fixtures {
		for _, tr := range transports {
			t.Run(fx+"/"+tr.name, func(t *testing.T) {
				s := newState(t, fx)
				cs := tr.connect(t, s.server(false), nil)
				cases := []struct {
					tool string
					args map[string]any
					cli  []string
				}{
					{"sessions_list", map[string]any{}, []string{"list"}},
					{"sessions_list", map[string]any{"limit": 2, "kinds": []string{"main", "group"}}, []string{"list", "--limit", "2", "--kinds", "main,group"}},
					{"sessions_list", map[string]any{"allAgents": true, "messageLimit": 2}, []string{"list", "--all-agents", "--messages", "2"}},
					{"sessions_list", map[string]any{"activeMinutes": 100000000}, []string{"list", "--active", "100000000"}},
					{"sessions_history", map[string]any{"sessionKey": "main", "limit": 3}, []string{"history", "--redact", "main", "--limit", "3"}},
					{"sessions_history", map[string]any{"sessionKey": "main", "includeTools": true}, []string{"history", "--redact", "main", "--include-tools"}},
					{"sessions_history", map[string]any{"sessionKey": "main", "limit": 3, "around": "3"}, []string{"history", "--redact", "main", "--limit", "3", "--around", "3"}},
					{"sessions_search", map[string]any{"query": "the", "ignoreCase": true}, []string{"search", "the", "-i"}},
					{"sessions_search", map[string]any{"query": "th[a-z]", "regex": true, "allAgents": true, "limit": 3, "role": "assistant"}, []string{"search", "th[a-z]", "--regex", "--all-agents", "--limit", "3", "--role", "assistant"}},
					{"sessions_show", map[string]any{"sessionKey": "main"}, []string{"show", "main"}},
					{"sessions_doctor", map[string]any{}, []string{"doctor"}},
					{"sessions_runs", map[string]any{}, []string{"runs"}},
					{"sessions_runs", map[string]any{"source": "all", "limit": 1}, []string{"runs", "--source", "all", "--limit", "1"}},
					{"sessions_runs", map[string]any{"source": "openclaw", "limit": 0, "status": "ok"}, []string{"runs", "--source", "openclaw", "--limit", "all", "--status", "ok"}},
					{"sessions_runs", map[string]any{"tree": true}, []string{"runs", "--tree"}},
					{"sessions_runs", map[string]any{"tree": true, "source": "sessions"}, []string{"runs", "--tree", "--source", "sessions"}},
				}
				for _, c := range cases {
					got := ok(t, cs, c.tool, c.args)
					if want := s.cliDoc(c.cli...); !sameJSON(got, want) {
						t.Errorf("%s %v:\n got %v\nwant %v", c.tool, c.args, got, want)
					}
				}
				// the history cursor: the page before, as the CLI reads it
				page := ok(t, cs, "sessions_history", map[string]any{"sessionKey": "main", "limit": 2})
				cur, _ := page["nextCursor"].(string)
				if page["hasMore"] != true || cur == "" {
					t.Fatalf("history of main: no cursor: %v", page)
				}
				older := ok(t, cs, "sessions_history", map[string]any{"sessionKey": "main", "limit": 2, "before": cur})
				if want := s.cliDoc("history", "--redact", "main", "--limit", "2", "--before", cur); !sameJSON(older, want) {
					t.Errorf("history before %s:\n got %v\nwant %v", cur, older, want)
				}
				// usage: the same rows and totals (files says what the cache
				// served, which differs between two runs)
				for _, c := range []struct {
					args map[string]any
					cli  []string
				}{{map[string]any{}, []string{"usage"}}, {map[string]any{"by": []string{"model", "agent"}, "allAgents": true}, []string{"usage", "--by", "model,agent", "--all-agents"}}} {
					got, want := ok(t, cs, "sessions_usage", c.args), s.cliDoc(c.cli...)
					for _, k := range []string{"by", "count", "rows", "totals"} {
						if !sameJSON(got[k], want[k]) {
							t.Errorf("usage %v: %s %v, want %v", c.args, k, got[k], want[k])
						}
					}
				}
			})
		}
	}
}

// progressCollector is a client's progress handler that keeps what it is
// sent.
type progressCollector struct {
	mu    sync.Mutex
	got   []*mcp.ProgressNotificationParams
	first chan struct{}
	once  sync.Once
}

func newProgress() *progressCollector { return &progressCollector{first: make(chan struct{})} }

func (p *progressCollector) handle(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	p.got = append(p.got, r.Params)
	p.mu.Unlock()
	p.once.Do(func() { close(p.first) })
}

// waitFirst waits for the first notification (a failure after a minute:
// none came).
func (p *progressCollector) waitFirst(t *testing.T) *mcp.ProgressNotificationParams {
	t.Helper()
	select {
	case <-p.first:
	case <-time.After(time.Minute):
		t.Fatal("no progress notification")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.got[0]
}

// The tools that write, on both eras and both transports: a send waited
// for (with progress), a send accepted then waited for, a spawn, a patch
// of the label and of the send policy (which then refuses a send).
func TestWriteTools(t *testing.T) {
	for _, fx := range fixtures {
		for _, tr := range transports {
			t.Run(fx+"/"+tr.name, func(t *testing.T) {
				s := newState(t, fx).withRunner()
				prog := newProgress()
				cs := tr.connect(t, s.server(false, realTime), &mcp.ClientOptions{ProgressNotificationHandler: prog.handle})

				params := &mcp.CallToolParams{Name: "sessions_send", Arguments: map[string]any{"sessionKey": "main", "message": "hello mcp", "timeoutSeconds": 120}}
				params.SetProgressToken("send-1")
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError {
					t.Fatalf("send: %v %s", err, text(res))
				}
				doc := res.StructuredContent.(map[string]any)
				if doc["status"] != "ok" || doc["reply"] != "pong: hello mcp" || doc["runId"] == "" {
					t.Fatalf("send: %v", doc)
				}
				if p := prog.waitFirst(t); p.ProgressToken != "send-1" || !strings.Contains(p.Message, "waiting for") {
					t.Errorf("progress: %+v", p)
				}

				acc := ok(t, cs, "sessions_send", map[string]any{"sessionKey": "main", "message": "later", "timeoutSeconds": 0})
				if acc["status"] != "accepted" || acc["runId"] == "" {
					t.Fatalf("send accepted: %v", acc)
				}
				waited := ok(t, cs, "sessions_wait", map[string]any{"runId": acc["runId"], "timeoutSeconds": 120})
				if waited["status"] != "ok" || waited["reply"] != "pong: later" || waited["runId"] != acc["runId"] {
					t.Fatalf("wait: %v", waited)
				}

				sp := ok(t, cs, "sessions_spawn", map[string]any{"task": "count the files", "label": "mcp-child", "cleanup": "keep"})
				child, _ := sp["childSessionKey"].(string)
				if sp["status"] != "accepted" || !strings.Contains(child, ":subagent:") || sp["runId"] == "" {
					t.Fatalf("spawn: %v", sp)
				}
				if w := ok(t, cs, "sessions_wait", map[string]any{"runId": sp["runId"], "timeoutSeconds": 120}); w["status"] != "ok" {
					t.Fatalf("wait for the spawn: %v", w)
				}
				shown := s.cliDoc("show", child)
				if shown["label"] != "mcp-child" {
					t.Errorf("spawned child: %v", shown)
				}

				p := ok(t, cs, "sessions_patch", map[string]any{"sessionKey": "main", "label": "mcp-label"})
				if p["ok"] != true {
					t.Fatalf("patch: %v", p)
				}
				if got := s.cliDoc("show", "main")["label"]; got != "mcp-label" {
					t.Errorf("label after patch: %v", got)
				}
				ok(t, cs, "sessions_patch", map[string]any{"sessionKey": "main", "clearLabel": true, "sendPolicy": "deny"})
				if got, has := s.cliDoc("show", "main")["label"]; has {
					t.Errorf("label after clearLabel: %v", got)
				}
				msg := fails(t, cs, "sessions_send", map[string]any{"sessionKey": "main", "message": "denied?", "timeoutSeconds": 0})
				if !strings.HasPrefix(msg, "forbidden (exit 3): ") {
					t.Errorf("send under a deny policy: %s", msg)
				}
			})
		}
	}
}

// Faults are tool errors that name the exit code, in OpenClaw's words
// where it has them; the server answers the next call.
func TestFaults(t *testing.T) {
	for _, fx := range fixtures {
		for _, tr := range transports {
			t.Run(fx+"/"+tr.name, func(t *testing.T) {
				s := newState(t, fx)
				cs := tr.connect(t, s.server(false), nil)
				asMain := tr.connect(t, s.server(false, func(c *ops.Config) { c.As = "main" }), nil)
				cases := []struct {
					cs   *mcp.ClientSession
					tool string
					args map[string]any
					want string
				}{
					{cs, "sessions_history", map[string]any{"sessionKey": "nope"}, "not found (exit 4): "},
					{cs, "sessions_history", map[string]any{"sessionKey": "main", "around": "no-such-message"}, "not found (exit 4): --around no-such-message: no such message"},
					{cs, "sessions_history", map[string]any{"sessionKey": "main", "around": "3", "before": "x"}, "invalid arguments (exit 2): --around cannot be used with --before"},
					{cs, "sessions_show", map[string]any{"sessionKey": "nope"}, "not found (exit 4): "},
					{cs, "sessions_show", map[string]any{}, "invalid arguments (exit 2): Either sessionKey or label is required"},
					{cs, "sessions_send", map[string]any{"sessionKey": "main", "label": "x", "message": "m"}, "invalid arguments (exit 2): Provide either sessionKey or label (not both)."},
					{cs, "sessions_send", map[string]any{"sessionKey": "main"}, "invalid arguments (exit 2): "},
					{cs, "sessions_send", map[string]any{"sessionKey": "main", "message": "  "}, "invalid arguments (exit 2): message required"},
					{cs, "sessions_send", map[string]any{"sessionKey": "nope", "message": "m", "timeoutSeconds": 0}, "not found (exit 4): "},
					{cs, "sessions_spawn", map[string]any{"task": "x", "cleanup": "maybe"}, "invalid arguments (exit 2): "},
					{cs, "sessions_spawn", map[string]any{"task": "x", "thinking": "galaxy-brain"}, "invalid arguments (exit 2): "},
					{cs, "sessions_list", map[string]any{"limit": "x"}, "invalid arguments (exit 2): "},
					{cs, "sessions_list", map[string]any{"limit": 0}, "invalid arguments (exit 2): "},
					{cs, "sessions_list", map[string]any{"bogus": 1}, "invalid arguments (exit 2): "},
					{cs, "sessions_list", map[string]any{"kinds": []string{"nope"}}, "invalid arguments (exit 2): "},
					{cs, "sessions_history", map[string]any{}, "invalid arguments (exit 2): Either sessionKey or label is required"},
					{cs, "sessions_history", map[string]any{"sessionKey": "main", "label": "x"}, "invalid arguments (exit 2): Provide either sessionKey or label (not both)."},
					{cs, "sessions_history", map[string]any{"label": "no-such-label"}, "not found (exit 4): "},
					{cs, "sessions_runs", map[string]any{"source": "theirs"}, "invalid arguments (exit 2): "},
					{cs, "sessions_runs", map[string]any{"status": "done"}, "invalid arguments (exit 2): "},
					{cs, "sessions_runs", map[string]any{"limit": -1}, "invalid arguments (exit 2): "},
					{cs, "sessions_delete", map[string]any{}, "invalid arguments (exit 2): Either sessionKey or keys is required"},
					{cs, "sessions_delete", map[string]any{"sessionKey": "main", "keys": []string{"main"}}, "invalid arguments (exit 2): Provide either sessionKey or keys (not both)."},
					{cs, "sessions_delete", map[string]any{"sessionKey": "nope"}, "not found (exit 4): "},
					{cs, "sessions_reset", map[string]any{}, "invalid arguments (exit 2): "},
					{cs, "sessions_archive", map[string]any{"sessionKey": "nope"}, "not found (exit 4): "},
					{cs, "sessions_history", map[string]any{"sessionKey": "main", "limit": 1001}, "invalid arguments (exit 2): "},
					{cs, "sessions_history", map[string]any{"sessionKey": "main", "before": "garbage"}, "invalid arguments (exit 2): "},
					{cs, "sessions_search", map[string]any{"query": "(", "regex": true}, "invalid arguments (exit 2): "},
					{cs, "sessions_search", map[string]any{"query": "x", "since": "yesterday-ish"}, "invalid arguments (exit 2): "},
					{cs, "sessions_usage", map[string]any{"by": []string{"planet"}}, "invalid arguments (exit 2): "},
					{cs, "sessions_wait", map[string]any{"runId": "nope"}, "invalid arguments (exit 2): "},
					{cs, "sessions_patch", map[string]any{"sessionKey": "main"}, "invalid arguments (exit 2): nothing to change"},
					{cs, "sessions_patch", map[string]any{"sessionKey": "nope", "label": "x"}, "not found (exit 4): "},
					{asMain, "sessions_doctor", map[string]any{}, "forbidden (exit 3): "},
				}
				for _, c := range cases {
					if got := fails(t, c.cs, c.tool, c.args); !strings.HasPrefix(got, c.want) {
						t.Errorf("%s %v: %q, want %q…", c.tool, c.args, got, c.want)
					}
				}
				// an unknown tool is the protocol's error, and the server stays up
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sessions_nope"}); err == nil {
					t.Error("an unknown tool answered")
				}
				if doc := ok(t, cs, "sessions_list", map[string]any{"limit": 1}); doc["count"] != float64(1) {
					t.Errorf("list after the faults: %v", doc)
				}
			})
		}
	}
}

// --read-only: the tools that write are neither listed nor run, on both
// transports, and nothing is written.
func TestReadOnly(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newState(t, fixtures[0])
			cs := tr.connect(t, s.server(true), nil)
			names, _ := toolNames(t, cs)
			if !slices.Equal(names, readTools) {
				t.Fatalf("read-only tools %v, want %v", names, readTools)
			}
			before := s.cliDoc("show", "main")
			hashes := s.hashes()
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"sessions_send", map[string]any{"sessionKey": "main", "message": "m", "timeoutSeconds": 0}},
				{"sessions_spawn", map[string]any{"task": "t"}},
				{"sessions_patch", map[string]any{"sessionKey": "main", "label": "changed"}},
				{"sessions_delete", map[string]any{"sessionKey": "agent:main:hook:github:push-42"}},
				{"sessions_delete", map[string]any{"keys": []string{"agent:main:hook:github:push-42"}, "dryRun": true}},
				{"sessions_reset", map[string]any{"sessionKey": "agent:main:hook:github:push-42"}},
				{"sessions_archive", map[string]any{"sessionKey": "agent:main:hook:github:push-42", "dryRun": true}},
			} {
				msg := fails(t, cs, c.tool, c.args)
				if !strings.HasPrefix(msg, "forbidden (exit 3): "+c.tool+" writes") || !strings.Contains(msg, "read-only") {
					t.Errorf("%s on a read-only server: %s", c.tool, msg)
				}
			}
			if recs, err := runs.Open(s.dir).List(); err != nil || len(recs) != 0 {
				t.Errorf("runs recorded on a read-only server: %d %v", len(recs), err)
			}
			if after := s.cliDoc("show", "main"); !sameJSON(before, after) {
				t.Errorf("main changed on a read-only server:\n%v\n%v", before, after)
			}
			s.sameHashes(hashes, "on a read-only server")
			ok(t, cs, "sessions_list", map[string]any{"limit": 1})
		})
	}
}

// 16 calls at once get the answers one call at a time gets.
func TestConcurrentCalls(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newState(t, fixtures[1])
			cs := tr.connect(t, s.server(false), nil)
			calls := []toolCall{
				{"sessions_list", map[string]any{"allAgents": true}},
				{"sessions_history", map[string]any{"sessionKey": "main", "limit": 5}},
				{"sessions_show", map[string]any{"sessionKey": "main"}},
				{"sessions_search", map[string]any{"query": "the", "ignoreCase": true}},
			}
			burst(t, cs, calls)
		})
	}
}

// toolCall is one call of a burst.
type toolCall struct {
	tool string
	args map[string]any
}

// burst makes 16 calls at once, round the calls given, and checks that each
// gets the answer the same call gets alone; it returns the answers' texts.
func burst(t *testing.T, cs *mcp.ClientSession, calls []toolCall) []string {
	t.Helper()
	want := make([]map[string]any, len(calls))
	for i, c := range calls {
		want[i] = ok(t, cs, c.tool, c.args)
	}
	var wg sync.WaitGroup
	texts := make([]string, 16)
	errs := make(chan string, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := calls[i%len(calls)]
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			switch {
			case err != nil:
				errs <- c.tool + ": " + err.Error()
			case res.IsError:
				errs <- c.tool + ": " + text(res)
			case !sameJSON(res.StructuredContent, want[i%len(calls)]):
				errs <- c.tool + ": another answer at once"
			default:
				texts[i] = text(res)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	return texts
}

// A client that gives up on sessions_send in the middle of the wait
// (cancellation) leaves the run going: sessions_wait with its id gets the
// reply, and the server answers the next call.
func TestSendCancelled(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newState(t, fixtures[0]).withRunner()
			gate := filepath.Join(s.tmp, "gate")
			t.Setenv("ENGINE_TEST_GATE", gate)
			prog := newProgress()
			cs := tr.connect(t, s.server(false, realTime), &mcp.ClientOptions{ProgressNotificationHandler: prog.handle})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			params := &mcp.CallToolParams{Name: "sessions_send", Arguments: map[string]any{"sessionKey": "main", "message": "slow one", "timeoutSeconds": 600}}
			params.SetProgressToken(7)
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, params)
				done <- err
			}()
			prog.waitFirst(t) // the send is waiting for the reply
			cancel()
			if err := <-done; err == nil {
				t.Fatal("a cancelled call answered")
			}
			recs, err := runs.Open(s.dir).List()
			if err != nil || len(recs) != 1 {
				t.Fatalf("runs: %d %v", len(recs), err)
			}
			if err := os.WriteFile(gate, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			w := ok(t, cs, "sessions_wait", map[string]any{"runId": recs[0].RunID, "timeoutSeconds": 120})
			if w["status"] != "ok" || w["reply"] != "pong: slow one" {
				t.Fatalf("wait after the cancel: %v", w)
			}
		})
	}
}

// A wait that gives up is a timeout (exit 5) naming the run, which goes on.
func TestWaitTimeoutNamesTheRun(t *testing.T) {
	s := newState(t, fixtures[1]).withRunner()
	gate := filepath.Join(s.tmp, "gate")
	t.Setenv("ENGINE_TEST_GATE", gate)
	cs := connectMemory(t, s.server(false, realTime), nil)
	acc := ok(t, cs, "sessions_send", map[string]any{"sessionKey": "main", "message": "held", "timeoutSeconds": 0})
	id := acc["runId"].(string)
	res := call(t, cs, "sessions_wait", map[string]any{"runId": id, "timeoutSeconds": 1})
	if !res.IsError || !strings.HasPrefix(text(res), "timeout (exit 5): ") || !strings.Contains(text(res), id) {
		t.Fatalf("wait that gives up: %s", text(res))
	}
	if len(res.Content) < 2 || !strings.Contains(res.Content[1].(*mcp.TextContent).Text, `"runId":"`+id+`"`) {
		t.Errorf("the error document lacks the run id: %v", res.Content)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if w := ok(t, cs, "sessions_wait", map[string]any{"runId": id, "timeoutSeconds": 120}); w["reply"] != "pong: held" {
		t.Fatalf("wait: %v", w)
	}
}

// The global flags apply to every call as they do to a command: --agent,
// --as (and $OPENCLAW_SESSION_KEY), --gateway.
func TestGlobalFlags(t *testing.T) {
	s := newState(t, fixtures[1])
	cases := []struct {
		name string
		mod  func(*ops.Config)
		cli  []string
	}{
		{"agent", func(c *ops.Config) { c.Agent = "ops" }, []string{"--agent", "ops"}},
		{"as", func(c *ops.Config) { c.As = "agent:ops:main" }, []string{"--as", "agent:ops:main"}},
	}
	for _, c := range cases {
		cs := connectMemory(t, s.server(false, c.mod), nil)
		for _, call := range []struct {
			tool string
			args map[string]any
			cli  []string
		}{
			{"sessions_list", map[string]any{}, []string{"list"}},
			{"sessions_show", map[string]any{"sessionKey": "main"}, []string{"show", "main"}},
			{"sessions_search", map[string]any{"query": "the", "ignoreCase": true}, []string{"search", "the", "-i"}},
		} {
			got := ok(t, cs, call.tool, call.args)
			if want := s.cliDoc(append(slices.Clone(c.cli), call.cli...)...); !sameJSON(got, want) {
				t.Errorf("%s: %s:\n got %v\nwant %v", c.name, call.tool, got, want)
			}
		}
	}
	// $OPENCLAW_SESSION_KEY is --as
	s.vars["OPENCLAW_SESSION_KEY"] = "agent:ops:main"
	cs := connectMemory(t, s.server(false), nil)
	got := ok(t, cs, "sessions_list", map[string]any{})
	delete(s.vars, "OPENCLAW_SESSION_KEY")
	if want := s.cliDoc("--as", "agent:ops:main", "list"); !sameJSON(got, want) {
		t.Errorf("$OPENCLAW_SESSION_KEY: %v, want %v", got, want)
	}
	// --agent with allAgents is refused as the CLI refuses it
	cs = connectMemory(t, s.server(false, cases[0].mod), nil)
	if msg := fails(t, cs, "sessions_list", map[string]any{"allAgents": true}); !strings.HasPrefix(msg, "invalid arguments (exit 2): allAgents") {
		t.Errorf("allAgents with --agent: %s", msg)
	}
}

// Through a gateway (--gateway URL --gateway-token-file F) the tools read
// what the gateway serves, as the commands do.
func TestThroughGateway(t *testing.T) {
	s := newState(t, fixtures[0])
	row := func(key, id, label string, at int64) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"key": key, "agentId": "main", "sessionId": id, "label": label, "updatedAt": at})
		return b
	}
	msg := func(role, text string, at int64) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"role": role, "content": []map[string]any{{"type": "text", "text": text}}, "timestamp": at})
		return b
	}
	gw := gatewaytest.Start(3, "gw-tok", gatewaytest.Data{
		Sessions: []json.RawMessage{row("agent:main:main", "11111111-1111-4111-8111-111111111111", "home", 1795236254000), row("agent:main:telegram:group:-5", "22222222-2222-4222-8222-222222222222", "", 1795236000000)},
		History:  map[string][]json.RawMessage{"agent:main:main": {msg("user", "hello gateway", 1795236250000), msg("assistant", "hi there", 1795236254000)}},
	})
	t.Cleanup(gw.Close)
	tokenFile := filepath.Join(s.tmp, "gw.token")
	if err := os.WriteFile(tokenFile, []byte("gw-tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	through := func(c *ops.Config) { c.StateDir, c.Gateway.URL, c.Gateway.TokenFile = "", gw.URL(), tokenFile }
	cs := connectMemory(t, s.server(false, through), nil)
	flags := []string{"--gateway", gw.URL(), "--gateway-token-file", tokenFile}
	for _, c := range []struct {
		tool string
		args map[string]any
		cli  []string
	}{
		{"sessions_list", map[string]any{}, []string{"list"}},
		{"sessions_history", map[string]any{"sessionKey": "agent:main:main"}, []string{"history", "--redact", "agent:main:main"}},
		{"sessions_show", map[string]any{"label": "home"}, []string{"show", "--label", "home"}},
		{"sessions_history", map[string]any{"label": "home", "limit": 1}, []string{"history", "--redact", "--label", "home", "--limit", "1"}},
		{"sessions_runs", map[string]any{}, []string{"runs"}},
	} {
		got := ok(t, cs, c.tool, c.args)
		_, out := s.cliNoState(append(slices.Clone(flags), append(c.cli, "--json")...)...)
		var want map[string]any
		if err := json.Unmarshal([]byte(out), &want); err != nil {
			t.Fatalf("%v: %v %s", c.cli, err, out)
		}
		if !sameJSON(got, want) {
			t.Errorf("%s through the gateway:\n got %v\nwant %v", c.tool, got, want)
		}
	}
	// a lifecycle tool answers as the command does through the gateway
	// (with no local state dir both refuse today: exit 10)
	res := call(t, cs, "sessions_delete", map[string]any{"sessionKey": "agent:main:telegram:group:-5", "dryRun": true})
	code, out := s.cliNoState(append(slices.Clone(flags), "delete", "agent:main:telegram:group:-5", "--dry-run", "--json")...)
	var want map[string]any
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatalf("delete through the gateway: exit %d: %v %s", code, err, out)
	}
	sameAnswer(t, "sessions_delete through the gateway", newIDs{}, res, code, want)
	if msg := fails(t, cs, "sessions_usage", map[string]any{}); !strings.HasPrefix(msg, "invalid arguments (exit 2): ") {
		t.Errorf("usage through a gateway: %s", msg)
	}
}

// sessions_history finds the session by label (and agentId) as `history
// --label L [--agent A]` does, on both eras and both transports.
func TestHistoryByLabel(t *testing.T) {
	for _, fx := range fixtures {
		for _, tr := range transports {
			t.Run(fx+"/"+tr.name, func(t *testing.T) {
				s := newState(t, fx)
				for _, p := range [][]string{{"patch", "main", "--label", "home"}, {"patch", "agent:ops:main", "--label", "ops-home"}} {
					if code, out := s.cli(p...); code != 0 {
						t.Fatalf("sessions %v: exit %d %s", p, code, out)
					}
				}
				cs := tr.connect(t, s.server(false), nil)
				for _, c := range []struct {
					args map[string]any
					cli  []string
				}{
					{map[string]any{"label": "home", "limit": 3}, []string{"history", "--redact", "--label", "home", "--limit", "3"}},
					{map[string]any{"label": "ops-home", "agentId": "ops"}, []string{"--agent", "ops", "history", "--redact", "--label", "ops-home"}},
				} {
					got := ok(t, cs, "sessions_history", c.args)
					if want := s.cliDoc(c.cli...); !sameJSON(got, want) {
						t.Errorf("history %v:\n got %v\nwant %v", c.args, got, want)
					}
				}
				if byKey := ok(t, cs, "sessions_history", map[string]any{"sessionKey": "main", "limit": 3}); !sameJSON(byKey, ok(t, cs, "sessions_history", map[string]any{"label": "home", "limit": 3})) {
					t.Error("history by label is not the history by key")
				}
				// without agentId: the label is looked up as the CLI looks it up
				if got, want := ok(t, cs, "sessions_history", map[string]any{"label": "ops-home"}), s.cliDoc("history", "--redact", "--label", "ops-home"); !sameJSON(got, want) {
					t.Errorf("history of ops-home without agentId:\n got %v\nwant %v", got, want)
				}
				// a label nobody has: not found, as the CLI says
				msg := fails(t, cs, "sessions_history", map[string]any{"label": "nobody-has-it"})
				code, _ := s.cli("history", "--label", "nobody-has-it")
				if !strings.HasPrefix(msg, "not found (exit 4): ") || code != 4 {
					t.Errorf("an unknown label: %s (the CLI exits %d)", msg, code)
				}
			})
		}
	}
}
