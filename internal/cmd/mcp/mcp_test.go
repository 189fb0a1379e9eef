package mcp

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/log/v2"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil"
)

func testFactory(t *testing.T) (*cmdutil.Factory, string) {
	t.Helper()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": tmp, "XDG_STATE_HOME": filepath.Join(tmp, "xdg-state"),
		"XDG_CONFIG_HOME": filepath.Join(tmp, "xdg-config"), "XDG_CACHE_HOME": filepath.Join(tmp, "xdg-cache")}
	ios, _, _, _ := iostreams.Test()
	getenv := func(k string) string { return env[k] }
	return &cmdutil.Factory{IO: ios, Env: config.Env{Getenv: getenv, Home: tmp}, Flags: &cmdutil.GlobalFlags{},
		Now: time.Now, Getenv: getenv}, dir
}

// testToken is what tokenFile writes: a bearer token of at least the 32
// bytes a token file must hold.
const testToken = "tok-secret-42-0123456789abcdef0123"

func tokenFile(t *testing.T, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(testToken+"\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFlags(t *testing.T) {
	f, _ := testFactory(t)
	var got *Options
	cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"--http", "127.0.0.1:8765", "--token-file", "/t", "--insecure-bind", "--read-only"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.HTTP != "127.0.0.1:8765" || got.TokenFile != "/t" || !got.InsecureBind || !got.ReadOnly {
		t.Errorf("options: %+v", got)
	}
}

// With --http the command serves the streamable transport at /mcp with
// the token from the file; the token is in no log line, even at debug.
func TestHTTPServe(t *testing.T) {
	f, dir := testFactory(t)
	f.Flags.StateDir = dir
	logs := &testutil.SyncBuffer{}
	f.Log = log.NewWithOptions(logs, log.Options{Level: log.DebugLevel})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	done := make(chan error, 1)
	cmd := NewCmd(f, func(o *Options) error {
		o.Context, o.Ready = ctx, func(addr string) { ready <- addr }
		return run(o)
	})
	cmd.SetArgs([]string{"--http", "127.0.0.1:0", "--token-file", tokenFile(t, 0o600)})
	go func() { done <- cmd.Execute() }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("the server ended: %v", err)
	}
	tr := &sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: authed{}}, MaxRetries: -1}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "sessions_list", Arguments: map[string]any{"limit": 1}})
	if err != nil || res.IsError {
		t.Fatalf("sessions_list over HTTP: %v %v", res, err)
	}
	_ = cs.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("the server ended with %v", err)
	}
	if l := logs.String(); !strings.Contains(l, "http://"+addr+"/mcp") || strings.Contains(l, "tok-secret-42") {
		t.Errorf("logs: %s", l)
	}
}

// The helpers the command's end-to-end tests (package mcp_test) share.
var (
	TestFactory   = testFactory
	TestTokenFile = tokenFile
)

type authed struct{}

func (authed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+testToken)
	return http.DefaultTransport.RoundTrip(r)
}
