package cli

import (
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway"
)

// The global gateway flags parse anywhere on the line, --context repeats
// (and takes commas or all), and resolve to endpoints through the contexts
// file and the environment.
func TestGatewayFlagsResolve(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	path, err := gateway.ContextsPath()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gateway.UpdateContexts(path, func(c *gateway.Contexts) error {
		for _, x := range []gateway.Context{
			{Name: "a", Gateway: "ws://127.0.0.1:1", TokenEnv: "A_TOK"},
			{Name: "b", Gateway: "wss://b.example.com"},
			{Name: "c", Gateway: "wss://c.example.com"},
		} {
			if err := c.Add(x, false); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want []string // endpoint URLs
		code int
	}{
		{args: []string{"context", "list"}, want: nil},
		{args: []string{"--context", "a", "context", "list", "--context", "c,b"}, env: map[string]string{"A_TOK": "x"},
			want: []string{"ws://127.0.0.1:1", "wss://c.example.com", "wss://b.example.com"}},
		{args: []string{"context", "list", "--context", "all"}, env: map[string]string{"A_TOK": "x"},
			want: []string{"ws://127.0.0.1:1", "wss://b.example.com", "wss://c.example.com"}},
		{args: []string{"--gateway", "ws://127.0.0.1:9", "context", "list"}, want: []string{"ws://127.0.0.1:9"}},
		{args: []string{"context", "list"}, env: map[string]string{gateway.EnvURL: "wss://env.example.com"}, want: []string{"wss://env.example.com"}},
		{args: []string{"--gateway", "ws://gw.example.com", "context", "list"}, code: apperr.CodeUsage},
		{args: []string{"--gateway", "ws://gw.example.com", "--insecure-gateway", "context", "list"}, want: []string{"ws://gw.example.com"}},
		{args: []string{"--context", "zz", "context", "list"}, code: apperr.CodeNotFound},
		{args: []string{"--context", "b", "--gateway", "ws://127.0.0.1:9", "context", "list"}, code: apperr.CodeUsage},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			f, _, errOut := testFactory(false)
			f.Getenv = func(k string) string { return tc.env[k] }
			if code := Run(f, tc.args); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			sc, err := f.Ops().Scope()
			if tc.code != 0 {
				if apperr.CodeOf(err) != tc.code {
					t.Fatalf("got %v, want exit %d", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			urls := sc.Gateways
			if strings.Join(urls, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("endpoints %v, want %v", urls, tc.want)
			}
		})
	}
}
