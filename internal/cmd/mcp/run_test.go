package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/cli"
	mcpcmd "github.com/openclaw/sessions/internal/cmd/mcp"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil"
)

// What cannot be served safely is refused before anything is: exit 2.
func TestRefusals(t *testing.T) {
	good := mcpcmd.TestTokenFile(t, 0o600)
	open := mcpcmd.TestTokenFile(t, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--token-file", good}, "--token-file needs --http"},
		{[]string{"mcp", "--insecure-bind"}, "--insecure-bind needs --http"},
		{[]string{"mcp", "--http", "127.0.0.1:0"}, "--http needs --token-file"},
		{[]string{"mcp", "--http", "127.0.0.1:0", "--token-file", open}, "can be read by others (mode 0644)"},
		{[]string{"mcp", "--http", "0.0.0.0:0", "--token-file", good}, "is not a loopback address"},
		{[]string{"mcp", "extra"}, "unexpected argument"},
	} {
		f, dir := mcpcmd.TestFactory(t)
		_, _, out, errOut := iostreams.Test()
		f.IO.Out, f.IO.ErrOut = out, errOut
		code := cli.Run(f, append([]string{"--state-dir", dir}, c.args...))
		if code != 2 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", c.args, code, errOut, c.want)
		}
		if strings.Contains(errOut.String(), "tok-secret-42") || out.Len() != 0 {
			t.Errorf("%v: stdout %q stderr %q", c.args, out, errOut)
		}
	}
}

// The command serves stdio by default: a client on its stdin/stdout lists
// and calls the tools; closing stdin ends it with exit 0.
func TestStdio(t *testing.T) {
	f, dir := mcpcmd.TestFactory(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errOut := &testutil.SyncBuffer{}
	f.IO.In, f.IO.Out, f.IO.ErrOut = inR, outW, errOut
	code := make(chan int, 1)
	go func() {
		code <- cli.Run(f, []string{"--state-dir", dir, "mcp", "--read-only"})
		outW.Close()
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 9 {
		t.Fatalf("tools over stdio (read-only): %v %v", tools, err)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "sessions_show", Arguments: map[string]any{"sessionKey": "main"}})
	if err != nil || res.IsError || res.StructuredContent.(map[string]any)["key"] != "main" {
		t.Fatalf("sessions_show over stdio: %v %v", res, err)
	}
	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "sessions_send", Arguments: map[string]any{"sessionKey": "main", "message": "m"}})
	if err != nil || !res.IsError {
		t.Fatalf("sessions_send over stdio on a read-only server: %v %v", res, err)
	}
	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "sessions_delete", Arguments: map[string]any{"sessionKey": "agent:main:hook:github:push-42"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "read-only") {
		t.Fatalf("sessions_delete over stdio on a read-only server: %v %v", res, err)
	}
	_ = cs.Close()
	if c := <-code; c != 0 {
		t.Errorf("exit %d after the client left: %s", c, errOut)
	}
}

// readmeBlocks are the fenced blocks of the "MCP server" section of docs/AGENTS.md,
// by language.
func readmeBlocks(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testutil.Root(t), "docs", "AGENTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, found := strings.Cut(string(b), "\n## MCP server\n")
	if !found {
		t.Fatal("docs/AGENTS.md has no MCP server section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	blocks := map[string][]string{}
	lines := strings.Split(sec, "\n")
	for i := 0; i < len(lines); i++ {
		lang, open := strings.CutPrefix(lines[i], "```")
		if !open || lang == "" {
			continue
		}
		var body []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		blocks[lang] = append(blocks[lang], strings.Join(body, "\n"))
	}
	return blocks
}

// server is one MCP server entry of a client's config.
type server struct {
	Type    string            `json:"type" toml:"type"`
	Command string            `json:"command" toml:"command"`
	Args    []string          `json:"args" toml:"args"`
	Env     map[string]string `json:"env" toml:"env"`
	URL     string            `json:"url" toml:"url"`
	Headers map[string]string `json:"headers" toml:"headers"`
}

// The manual's config snippets (docs/AGENTS.md) parse (JSON, TOML), and each server they
// define is a `sessions mcp` invocation the CLI accepts, or this server's
// HTTP endpoint with a bearer token.
func TestReadmeSnippets(t *testing.T) {
	blocks := readmeBlocks(t)
	if len(blocks["json"]) != 2 || len(blocks["toml"]) != 1 {
		t.Fatalf("want 2 json and 1 toml snippets, got %d and %d", len(blocks["json"]), len(blocks["toml"]))
	}
	var openclaw struct {
		MCP struct {
			Servers map[string]server `json:"servers"`
		} `json:"mcp"`
	}
	var claude struct {
		MCPServers map[string]server `json:"mcpServers"`
	}
	var codex struct {
		MCPServers map[string]server `toml:"mcp_servers"`
	}
	for i, dst := range []any{&openclaw, &claude} {
		dec := json.NewDecoder(strings.NewReader(blocks["json"][i]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(dst); err != nil {
			t.Fatalf("json snippet %d: %v", i+1, err)
		}
	}
	md, err := toml.Decode(blocks["toml"][0], &codex)
	if err != nil {
		t.Fatalf("toml snippet: %v", err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Errorf("toml snippet: keys not understood: %v", u)
	}
	all := map[string]map[string]server{"openclaw": openclaw.MCP.Servers, "claude": claude.MCPServers, "codex": codex.MCPServers}
	stdio, http := 0, 0
	for client, servers := range all {
		if len(servers) == 0 {
			t.Errorf("%s: no server", client)
		}
		for name, s := range servers {
			if s.URL != "" {
				http++
				if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || !strings.HasSuffix(s.URL, "/mcp") || !strings.HasPrefix(s.Headers["Authorization"], "Bearer ") {
					t.Errorf("%s %s: %+v", client, name, s)
				}
				continue
			}
			stdio++
			if s.Command != "sessions" || len(s.Args) == 0 || s.Args[0] != "mcp" {
				t.Errorf("%s %s: not sessions mcp: %+v", client, name, s)
				continue
			}
			f, _ := mcpcmd.TestFactory(t)
			var got *mcpcmd.Options
			root := cli.NewRoot(f)
			for _, c := range root.Commands() {
				if c.Name() == "mcp" {
					root.RemoveCommand(c)
				}
			}
			root.AddCommand(mcpcmd.NewCmd(f, func(o *mcpcmd.Options) error { got = o; return nil }))
			root.SetArgs(s.Args)
			if err := root.Execute(); err != nil || got == nil {
				t.Errorf("%s %s: sessions %s: %v", client, name, strings.Join(s.Args, " "), err)
			}
			for k, v := range s.Env {
				switch {
				case k == "OPENCLAW_SESSION_KEY" && strings.HasPrefix(v, "agent:"):
				case k == "OPENCLAW_STATE_DIR" && filepath.IsAbs(v):
				default:
					t.Errorf("%s %s: env %s=%q is not a session key or a state dir", client, name, k, v)
				}
			}
		}
	}
	if stdio != 3 || http != 1 {
		t.Errorf("%d stdio and %d http servers, want 3 and 1", stdio, http)
	}
}
