package mcpserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
	"github.com/openclaw/sessions/internal/ops"
)

// A fleet (`sessions mcp --context all`): sessions_list fans out to every
// context as `list --context all` does; each row of its structuredContent
// says its context, and a host that fails is one entry of errors beside
// the other host's rows, on both transports. The CLI exits 1 then; the
// tool answers (the rows are the answer, errors says what is missing).
func TestFleet(t *testing.T) {
	row := func(key, id string, at int64) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"key": key, "agentId": "main", "sessionId": id, "updatedAt": at})
		return b
	}
	home := gatewaytest.Start(4, "home-tok", gatewaytest.Data{Sessions: []json.RawMessage{
		row("agent:main:main", "11111111-1111-4111-8111-111111111111", 1795236254000),
		row("agent:main:telegram:group:-5", "22222222-2222-4222-8222-222222222222", 1795236000000),
	}})
	t.Cleanup(home.Close)
	// up, but the token its context holds is not its own: every call fails
	vps := gatewaytest.Start(3, "vps-tok", gatewaytest.Data{Sessions: []json.RawMessage{
		row("agent:main:main", "33333333-3333-4333-8333-333333333333", 1795236100000),
	}})
	t.Cleanup(vps.Close)

	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newState(t, fixtures[0])
			for name, c := range map[string]struct{ url, token string }{"home": {home.URL(), "home-tok"}, "vps": {vps.URL(), "not-the-vps-token"}} {
				tok := filepath.Join(s.tmp, name+".token")
				if err := os.WriteFile(tok, []byte(c.token+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				if code, out := s.cliNoState("context", "add", name, "--gateway", c.url, "--token-file", tok); code != 0 {
					t.Fatalf("context add %s: exit %d %s", name, code, out)
				}
			}
			fleet := func(c *ops.Config) { c.StateDir, c.Gateway.Contexts = "", []string{"all"} }
			cs := tr.connect(t, s.server(true, fleet), nil)
			got := ok(t, cs, "sessions_list", map[string]any{})

			code, out := s.cliNoState("--context", "all", "list", "--json")
			var want map[string]any
			if err := json.Unmarshal([]byte(out), &want); err != nil {
				t.Fatalf("list --context all: exit %d: %v %s", code, err, out)
			}
			if code != 1 || !sameJSON(got, want) {
				t.Errorf("sessions_list on the fleet (the CLI exits %d):\n got %v\nwant %v", code, got, want)
			}
			var keys []string
			rows, _ := got["sessions"].([]any)
			for _, r := range rows {
				m := r.(map[string]any)
				keys = append(keys, m["context"].(string)+" "+m["key"].(string))
			}
			if want := []string{"home agent:main:main", "home agent:main:telegram:group:-5"}; !slices.Equal(keys, want) {
				t.Errorf("rows %v, want %v", keys, want)
			}
			errs, _ := got["errors"].([]any)
			if len(errs) != 1 {
				t.Fatalf("errors %v, want the vps", got["errors"])
			}
			e := errs[0].(map[string]any)
			if msg, _ := e["error"].(string); e["context"] != "vps" || !strings.Contains(msg, "refused our credentials") {
				t.Errorf("the failing host's error: %v", e)
			}
			if b, _ := json.Marshal(got); strings.Contains(string(b), "-tok") {
				t.Errorf("the answer holds a token: %s", b)
			}
		})
	}
}
