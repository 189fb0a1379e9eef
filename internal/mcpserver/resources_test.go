package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
	"github.com/openclaw/sessions/internal/mcpserver"
	"github.com/openclaw/sessions/internal/ops"
)

func resourceServer(s *state, pageSize int, mod ...func(*ops.Config)) *mcpserver.Server {
	c := s.config()
	for _, m := range mod {
		m(&c)
	}
	return mcpserver.New(mcpserver.Options{Ops: c, ReadOnly: true, ResourcePageSize: pageSize})
}

// allResources lists every resource, page by page, as a client does (the
// SDK's iterator follows nextCursor), and counts the pages.
func allResources(t *testing.T, cs *mcp.ClientSession) (res []*mcp.Resource, pages int) {
	t.Helper()
	cursor := ""
	for {
		r, err := cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatalf("resources/list (cursor %q): %v", cursor, err)
		}
		pages++
		res = append(res, r.Resources...)
		if r.NextCursor == "" {
			return res, pages
		}
		cursor = r.NextCursor
	}
}

// readPage reads a transcript URI: the history document and the URI of
// the older page ("" when there is none).
func readPage(t *testing.T, cs *mcp.ClientSession, uri string) (doc map[string]any, next string) {
	t.Helper()
	r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("resources/read %s: %v", uri, err)
	}
	if len(r.Contents) != 1 || r.Contents[0].URI != uri || r.Contents[0].MIMEType != "application/json" {
		t.Fatalf("resources/read %s: contents %+v", uri, r.Contents)
	}
	if err := json.Unmarshal([]byte(r.Contents[0].Text), &doc); err != nil {
		t.Fatalf("resources/read %s: %v", uri, err)
	}
	next, _ = r.Meta["nextUri"].(string)
	return doc, next
}

// withLimit is uri with a page size.
func withLimit(uri string, n int) string {
	sep := "?"
	if strings.Contains(uri, "?") {
		sep = "&"
	}
	return fmt.Sprintf("%s%slimit=%d", uri, sep, n)
}

// Every session the CLI lists is a resource exactly once, newest first,
// over several pages; each transcript read page by page (through
// _meta.nextUri) gives every message once, each page the document
// `sessions history --json --redact` prints for that page, and the pages
// together the whole transcript.
func TestResourcesListAndRead(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			s := newState(t, fx)
			cs := connectMemory(t, resourceServer(s, 3), nil)
			res, pages := allResources(t, cs)
			want := s.cliDoc("list", "--all-agents", "--limit", "all")
			rows := want["sessions"].([]any)
			if len(res) != len(rows) || pages != (len(rows)+2)/3 {
				t.Fatalf("%d resources in %d pages, want %d in %d", len(res), pages, len(rows), (len(rows)+2)/3)
			}
			// the SDK's iterator follows the cursors to the same list
			var iterated []*mcp.Resource
			for r, err := range cs.Resources(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				iterated = append(iterated, r)
			}
			if !sameJSON(iterated, res) {
				t.Fatalf("the SDK's iterator lists %d resources, the pages %d (or others)", len(iterated), len(res))
			}
			seen := map[string]bool{}
			last := ""
			for i, r := range res {
				row := rows[i].(map[string]any)
				id := row["agentId"].(string) + " " + row["key"].(string)
				if seen[r.URI] {
					t.Fatalf("%s listed twice", r.URI)
				}
				seen[r.URI] = true
				if r.Name != row["key"] || r.MIMEType != "application/json" {
					t.Errorf("resource %d is %+v, want the session %s (the CLI's order)", i, r, id)
				}
				if r.Annotations != nil && last != "" && r.Annotations.LastModified > last {
					t.Errorf("%s is newer than the resource before it", r.URI)
				}
				if r.Annotations != nil {
					last = r.Annotations.LastModified
				}
				u, err := url.Parse(r.URI)
				if err != nil || u.Scheme != "openclaw-session" || u.Host != row["agentId"] {
					t.Fatalf("URI %s: %v", r.URI, err)
				}

				whole := s.cliDoc("--redact", "history", row["key"].(string), "--agent", row["agentId"].(string), "--limit", "1000")
				var got []any
				uri, n := withLimit(r.URI, 2), 0
				for uri != "" {
					doc, next := readPage(t, cs, uri)
					n++
					cli := []string{"--redact", "history", row["key"].(string), "--agent", row["agentId"].(string), "--limit", "2"}
					if q, _ := url.Parse(uri); q.Query().Get("before") != "" {
						cli = append(cli, "--before", q.Query().Get("before"))
					}
					if page := s.cliDoc(cli...); !sameJSON(doc, page) {
						t.Fatalf("%s:\n got %v\nwant %v (sessions %s)", uri, doc, page, strings.Join(cli, " "))
					}
					if (next != "") != (doc["hasMore"] == true) {
						t.Fatalf("%s: hasMore %v but nextUri %q", uri, doc["hasMore"], next)
					}
					got = append(doc["messages"].([]any), got...)
					uri = next
				}
				if wm := whole["messages"].([]any); !sameJSON(got, wm) || len(wm) == 0 && n != 1 {
					t.Errorf("%s: the %d pages hold %d messages, the whole transcript %d (or they differ)", r.URI, n, len(got), len(wm))
				}
			}
		})
	}
}

// rpcError is err's JSON-RPC error (the test fails when it is none).
func rpcError(t *testing.T, what string, err error) *jsonrpc.Error {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: want a JSON-RPC error, got %v", what, err)
	}
	return e
}

// A URI that names no transcript, a key of no session, a bad cursor or
// limit, a bad list cursor: each a proper error, and the server answers on.
func TestResourceErrors(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			s := newState(t, fx)
			cs := connectMemory(t, resourceServer(s, 0), nil)
			res, _ := allResources(t, cs)
			main := ""
			for _, r := range res {
				if r.Name == "main" {
					main = r.URI
				}
			}
			if main != "openclaw-session://main/main" {
				t.Fatalf("the main session's URI is %q", main)
			}
			ctx := context.Background()
			notFound := []string{
				"file:///etc/passwd",
				"openclaw-session://main/agent%3Amain%3Anope",
				"openclaw-session://nope/main",
				"openclaw-session://ops/agent%3Amain%3Amain", // another agent's key
				"openclaw-session://main/a/b",
				"openclaw-session://main/main?context=prod", // no fleet here
			}
			for _, uri := range notFound {
				_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				e := rpcError(t, uri, err)
				if e.Code != mcp.CodeResourceNotFound || e.Message != "Resource not found" || !strings.Contains(string(e.Data), "openclaw-session") && !strings.Contains(string(e.Data), "file:") {
					t.Errorf("%s: %d %s %s, want resource not found", uri, e.Code, e.Message, e.Data)
				}
			}
			invalid := map[string]string{
				main + "?before=zzz":               "invalid arguments (exit 2): ",
				main + "?limit=0":                  "invalid arguments (exit 2): ",
				main + "?limit=1001":               "invalid arguments (exit 2): ",
				main + "?limit=2&limit=3":          "unknown or repeated parameter",
				main + "?after=x":                  "unknown or repeated parameter",
				main + "?before=gw%3Aopaque-token": "invalid arguments (exit 2): ",
			}
			for uri, msg := range invalid {
				_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				e := rpcError(t, uri, err)
				if e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, msg) || e.Message == "Resource not found" {
					t.Errorf("%s: %d %s, want invalid params %q", uri, e.Code, e.Message, msg)
				}
			}
			for _, c := range []string{"zzz", "eyJ4IjoxfQ"} {
				_, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: c})
				if e := rpcError(t, "list cursor "+c, err); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "invalid resources/list cursor") {
					t.Errorf("list cursor %s: %d %s", c, e.Code, e.Message)
				}
			}
			// still serving: the template, the list and a read
			tr, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil || len(tr.ResourceTemplates) != 1 || tr.ResourceTemplates[0].URITemplate != "openclaw-session://{agentId}/{key}{?context,before,limit}" {
				t.Fatalf("templates: %v %+v", err, tr)
			}
			if again, _ := allResources(t, cs); len(again) != len(res) {
				t.Fatalf("after the errors: %d resources, before %d", len(again), len(res))
			}
			if doc, _ := readPage(t, cs, main); doc["sessionKey"] != "agent:main:main" && doc["sessionKey"] != "main" {
				t.Fatalf("main: %v", doc)
			}
		})
	}
}

// A requester (--as) lists only the sessions it may see, and another
// agent's session it may not read is not found, as one that is not there.
func TestResourcesAs(t *testing.T) {
	const as = "agent:main:telegram:group:-100123"
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			s := newState(t, fx)
			cs := connectMemory(t, resourceServer(s, 2, func(c *ops.Config) { c.As = as }), nil)
			res, _ := allResources(t, cs)
			want := s.cliDoc("--as", as, "list", "--all-agents", "--limit", "all")["sessions"].([]any)
			var got, wantKeys []string
			for _, r := range res {
				got = append(got, r.Name)
			}
			for _, w := range want {
				wantKeys = append(wantKeys, w.(map[string]any)["key"].(string))
			}
			if !slices.Equal(got, wantKeys) || slices.Contains(got, "agent:ops:main") {
				t.Fatalf("as %s: %v, want %v", as, got, wantKeys)
			}
			_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "openclaw-session://ops/agent%3Aops%3Amain"})
			if e := rpcError(t, "agent:ops:main as "+as, err); e.Code != mcp.CodeResourceNotFound || e.Message != "Resource not found" {
				t.Fatalf("agent:ops:main as %s: %d %s", as, e.Code, e.Message)
			}
			// what it may see, it reads as `--as` history does (masked, as
			// every answer to an agent)
			for i, r := range res {
				row := want[i].(map[string]any)
				doc, _ := readPage(t, cs, r.URI)
				if w := s.cliDoc("--as", as, "history", row["key"].(string), "--agent", row["agentId"].(string)); !sameJSON(doc, w) {
					t.Errorf("%s as %s:\n got %v\nwant %v", r.URI, as, doc, w)
				}
			}
		})
	}
}

// On a fleet (--context all) each resource names its context, two hosts'
// sessions of the same key are two resources, and each is read, page by
// page, from its own host; a context the server does not serve is not
// found.
func TestResourcesFleet(t *testing.T) {
	s := newState(t, fixtures[0])
	row := func(key string, at int64) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"key": key, "agentId": "main", "updatedAt": at})
		return b
	}
	msgs := func(host string, n int) []json.RawMessage {
		var out []json.RawMessage
		for i := range n {
			b, _ := json.Marshal(map[string]any{"role": "user", "content": []map[string]any{{"type": "text", "text": fmt.Sprintf("%s message %d", host, i)}}, "timestamp": 1795236250000 + i})
			out = append(out, b)
		}
		return out
	}
	tokenFile := filepath.Join(s.tmp, "gw.token")
	if err := os.WriteFile(tokenFile, []byte("gw-tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for i, host := range []string{"alpha", "beta"} {
		gw := gatewaytest.Start(3, "gw-tok", gatewaytest.Data{
			Sessions: []json.RawMessage{row("agent:main:main", 1795236254000-int64(i)), row("agent:main:telegram:group:-5", 1795236000000)},
			History:  map[string][]json.RawMessage{"agent:main:main": msgs(host, 5)},
		})
		t.Cleanup(gw.Close)
		if code, out := s.cliNoState("context", "add", host, "--gateway", gw.URL(), "--token-file", tokenFile); code != 0 {
			t.Fatalf("context add %s: %s", host, out)
		}
		for _, m := range msgs(host, 5) {
			want[host] = append(want[host], string(m))
		}
	}
	fleet := func(c *ops.Config) { c.StateDir, c.Gateway.Contexts = "", []string{"all"} }
	cs := connectMemory(t, resourceServer(s, 3, fleet), nil)
	res, pages := allResources(t, cs)
	if len(res) != 4 || pages != 2 {
		t.Fatalf("%d resources in %d pages, want 4 in 2", len(res), pages)
	}
	for _, host := range []string{"alpha", "beta"} {
		uri := "openclaw-session://main/agent%3Amain%3Amain?context=" + host
		if !slices.ContainsFunc(res, func(r *mcp.Resource) bool { return r.URI == uri }) {
			t.Fatalf("no resource %s in %v", uri, res)
		}
		var got []string
		for page := withLimit(uri, 2); page != ""; {
			doc, next := readPage(t, cs, page)
			var older []string
			for _, m := range doc["messages"].([]any) {
				older = append(older, m.(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string))
			}
			got = append(older, got...)
			page = next
		}
		var texts []string
		for i := range 5 {
			texts = append(texts, fmt.Sprintf("%s message %d", host, i))
		}
		if !slices.Equal(got, texts) {
			t.Errorf("%s read page by page: %v, want %v", uri, got, texts)
		}
	}
	gamma := "openclaw-session://main/agent%3Amain%3Amain?context=gamma"
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: gamma})
	if e := rpcError(t, gamma, err); e.Code != mcp.CodeResourceNotFound || e.Message != "Resource not found" {
		t.Errorf("%s: %d %s, want resource not found", gamma, e.Code, e.Message)
	}
	bare := "openclaw-session://main/agent%3Amain%3Amain"
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: bare})
	if e := rpcError(t, bare, err); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "names its context") {
		t.Errorf("%s on a fleet: %d %s, want invalid params naming the context", bare, e.Code, e.Message)
	}
}

// Over streamable HTTP, on a server that also writes (not --read-only),
// the resources are the same: one page of every session, each read as
// `sessions history --json --redact` prints its newest page.
func TestResourcesOverHTTP(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			s := newState(t, fx)
			cs := connectHTTP(t, s.server(false), nil)
			res, pages := allResources(t, cs)
			rows := s.cliDoc("list", "--all-agents", "--limit", "all")["sessions"].([]any)
			if len(res) != len(rows) || pages != 1 {
				t.Fatalf("%d resources in %d pages, want %d in 1", len(res), pages, len(rows))
			}
			for i, r := range res {
				row := rows[i].(map[string]any)
				doc, next := readPage(t, cs, r.URI)
				want := s.cliDoc("--redact", "history", row["key"].(string), "--agent", row["agentId"].(string))
				if !sameJSON(doc, want) || (next != "") != (want["hasMore"] == true) {
					t.Errorf("%s over HTTP:\n got %v\nwant %v", r.URI, doc, want)
				}
			}
		})
	}
}
