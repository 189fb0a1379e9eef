package mcp_test

import (
	"context"
	"io"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/cli"
	mcpcmd "github.com/openclaw/sessions/internal/cmd/mcp"
	"github.com/openclaw/sessions/internal/iostreams"
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
	errOut := &mcpcmd.SyncBuffer{}
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
	if err != nil || len(tools.Tools) != 7 {
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
	_ = cs.Close()
	if c := <-code; c != 0 {
		t.Errorf("exit %d after the client left: %s", c, errOut)
	}
}
