package mcpserver_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw/sessions/internal/ops"
	_ "modernc.org/sqlite"
)

// Masking probes: secrets planted where an agent could read them — a user's
// password=, a Bearer token, an sk-proj- key, a ?token= query, a password
// nested deep in a tool call's arguments, string-encoded arguments, an
// assistant's errorMessage and a tool result's details.stdout — reach no
// agent through any command, tool or resource, and no agent query's answer
// depends on them. The operator sees them as stored.

// advPassword is long enough that its mask keeps its first 6 and last 4
// characters ("Zq7pW3…tY4c"): the probes ask about what the mask hides.
const advPassword = "Zq7pW3xK9mB2vL5nR8tY4c"

// advHidden are the parts of the planted secrets no agent may see.
var advHidden = []string{
	"xK9mB2vL5nR8",       // password= in a user's text
	"Tk0QmWx2Lp9Zs4",     // Bearer in a tool call's command
	"Cd34Ef56Gh78Ij90",   // sk-proj- key under OPENAI_API_KEY
	"Vw8Yz1Bc4Df7",       // ?token= in a URL
	"pl4inNestedPw",      // a password nested in arrays and objects
	"str1ngEnc0dedKey",   // apiKey in string-encoded arguments
	"Rr88Ee77Ww66",       // a key in errorMessage
	"Uu0Tt9Ss8Rr7Qq6Pp5", // GITHUB_TOKEN in details.stdout
}

// advMessages are the planted messages, each a transcript event's message.
func advMessages() []string {
	return []string{
		`{"role":"user","content":[{"type":"text","text":"my password=` + advPassword + ` ok"}],"timestamp":1795300000000}`,
		`{"role":"assistant","content":[{"type":"text","text":"calling"},` +
			`{"type":"toolCall","id":"call_adv1","name":"exec","arguments":{"command":"curl -H 'Authorization: Bearer bRr7Tk0QmWx2Lp9Zs4Nd8Hy3' https://api.example.com/v1/items?token=Qt5Vw8Yz1Bc4Df7Gh0Jk3","env":{"OPENAI_API_KEY":"sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34"},"db":{"conn":[{"opts":[{"password":"pl4inNestedPw"}]}]}}},` +
			`{"type":"toolCall","id":"call_adv2","name":"login","arguments":"{\"apiKey\":\"str1ngEnc0dedKey\"}"}],` +
			`"api":"openai-completions","provider":"mock","model":"mock-1","stopReason":"error","errorMessage":"upstream 401: invalid api key sk-proj-Er99Rr88Ee77Ww66Qq55Tt44","timestamp":1795300001000}`,
		`{"role":"toolResult","toolCallId":"call_adv1","toolName":"exec","content":[{"type":"text","text":"done"}],"details":{"stdout":"export GITHUB_TOKEN=ghp_Uu0Tt9Ss8Rr7Qq6Pp5Oo4Nn3Mm2Ll1\n","exitCode":0},"isError":false,"timestamp":1795300002000}`,
	}
}

// advEvents wraps the planted messages as events chained after parent.
func advEvents(parent string) []string {
	var out []string
	for i, m := range advMessages() {
		id := fmt.Sprintf("adv0000%d", i)
		out = append(out, fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-11-21T06:00:0%d.000Z","message":%s}`, id, parent, i, m))
		parent = id
	}
	return out
}

// plantJSONL appends the planted events to the 1.30 main transcript.
func plantJSONL(t *testing.T, s *state) {
	t.Helper()
	p := filepath.Join(s.dir, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	var last struct{ ID string }
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.ID == "" {
		t.Fatalf("fixture's last line: %v", err)
	}
	b = append(b, []byte(strings.Join(advEvents(last.ID), "\n")+"\n")...)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// plantSQLite appends the planted events to the 9.6 main session's events.
func plantSQLite(t *testing.T, s *state) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(s.dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var sid string
	if err := db.QueryRow(`SELECT session_id FROM session_windows WHERE session_key = 'agent:main:main'`).Scan(&sid); err != nil {
		t.Fatal(err)
	}
	var seq int64
	var last string
	if err := db.QueryRow(`SELECT seq, event_json FROM transcript_events WHERE session_id = ? ORDER BY seq DESC LIMIT 1`, sid).Scan(&seq, &last); err != nil {
		t.Fatal(err)
	}
	var ev struct{ ID string }
	if err := json.Unmarshal([]byte(last), &ev); err != nil || ev.ID == "" {
		t.Fatalf("fixture's last event: %v", err)
	}
	for i, e := range advEvents(ev.ID) {
		if _, err := db.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)`,
			sid, seq+1+int64(i), e, 1795300000000+int64(i)); err != nil {
			t.Fatal(err)
		}
	}
}

// leaks names the hidden secret parts out shows.
func leaks(out string) []string {
	var found []string
	for _, h := range advHidden {
		if strings.Contains(out, h) {
			found = append(found, h)
		}
	}
	return found
}

func TestAdversarialMaskingProbes(t *testing.T) {
	for _, fx := range []struct {
		fixture string
		plant   func(*testing.T, *state)
	}{{"state-2026.1.30", plantJSONL}, {"state-2026.9.6", plantSQLite}} {
		t.Run(fx.fixture, func(t *testing.T) {
			s := newState(t, fx.fixture)
			fx.plant(t, s)

			// The operator reads them as stored: the probes below are not
			// vacuous.
			_, out := s.cli("history", "main", "--json", "--include-tools", "--raw")
			if l := leaks(out); len(l) != len(advHidden) {
				t.Fatalf("the operator's raw history shows %d of the %d planted secrets: %v\n%s", len(l), len(advHidden), l, out)
			}
			if n := s.searchCount(t, "", "password="+advPassword[:8], false); n == 0 {
				t.Fatalf("the operator's search does not find the planted password")
			}

			as := []string{"--as", "agent:main:main"}
			for _, args := range [][]string{
				{"history", "main", "--include-tools"},
				{"history", "main", "--include-tools", "--json"},
				{"history", "main", "--include-tools", "--format", "markdown"},
				{"history", "main", "--include-tools", "--raw", "--json"},
				{"list", "--messages", "5", "--json"},
				{"show", "main", "--json"},
				{"search", "--include-tools", "--json", "-C", "3", "ok"},
				{"search", "--include-tools", "--json", "-C", "3", "calling"},
				{"search", "--include-tools", "--json", "-C", "3", "--regex", "."},
			} {
				_, out := s.cli(append(as, args...)...)
				if out == "" {
					t.Errorf("sessions %s: no output", strings.Join(args, " "))
				}
				if l := leaks(out); l != nil {
					t.Errorf("sessions --as %s shows %v:\n%s", strings.Join(args, " "), l, out)
				}
			}

			// No query can tell a masked secret from another string: the
			// right and a wrong continuation of what the mask shows count
			// the same, literal or regex, in any case.
			for _, q := range []struct {
				right, wrong string
				regex        bool
			}{
				{"password=" + advPassword[:7], "password=" + advPassword[:6] + "Q", false},
				{"password=" + advPassword[:12], "password=" + advPassword[:11] + "Q", false},
				{"password=" + advPassword[:6] + "[x-z]", "password=" + advPassword[:6] + "[a-c]", true},
				{"Bearer bRr7Tk0", "Bearer bRr7Tk1", false},
				{"sk-proj-Ab12Cd3", "sk-proj-Ab12Cd4", false},
				{`"apiKey\\?":\\?"str1`, `"apiKey\\?":\\?"xtr1`, true},
				{"token=Qt5Vw8Y", "token=Qt5Vw8Q", false},
				{"pl4inN", "pl4inX", false},
			} {
				r, w := s.searchCount(t, "agent:main:main", q.right, q.regex), s.searchCount(t, "agent:main:main", q.wrong, q.regex)
				if r != w {
					t.Errorf("agent search %q counts %d, %q counts %d: the answer depends on the secret", q.right, r, q.wrong, w)
				}
			}
			// What the mask shows is found, as any text is.
			if n := s.searchCount(t, "agent:main:main", "password=Zq7pW3…tY4c", false); n == 0 {
				t.Errorf("agent search for the masked text finds nothing")
			}

			for _, tr := range transports {
				t.Run(tr.name, func(t *testing.T) {
					cs := tr.connect(t, s.server(true, func(c *ops.Config) { c.As = "agent:main:main" }), nil)
					check := func(what string, doc any) {
						t.Helper()
						b, _ := json.Marshal(doc)
						if l := leaks(string(b)); l != nil {
							t.Errorf("%s shows %v:\n%s", what, l, b)
						}
					}
					check("sessions_history", ok(t, cs, "sessions_history", map[string]any{"sessionKey": "main", "includeTools": true, "limit": 50}))
					check("sessions_list", ok(t, cs, "sessions_list", map[string]any{"messageLimit": 20}))
					check("sessions_search", ok(t, cs, "sessions_search", map[string]any{"query": ".", "regex": true, "includeTools": true, "context": 3}))
					r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "openclaw-session://main/main"})
					if err != nil {
						t.Fatal(err)
					}
					check("resources/read", r)
					// The binary search of the report: each step's count
					// must not depend on the secret.
					count := func(q string) float64 {
						doc := ok(t, cs, "sessions_search", map[string]any{"query": q, "regex": true, "includeTools": true})
						n, _ := doc["totalCount"].(float64)
						return n
					}
					for i := 6; i < len(advPassword)-4; i++ {
						c, other := advPassword[i], byte('Q')
						if c == other {
							other = 'J'
						}
						if r, w := count("password="+regexpQuote(advPassword[:i])+"["+string(c)+"]"), count("password="+regexpQuote(advPassword[:i])+"["+string(other)+"]"); r != w {
							t.Errorf("sessions_search: character %d of the password: right %v, wrong %v", i, r, w)
						}
					}
				})
			}
		})
	}
}

func regexpQuote(s string) string {
	return strings.NewReplacer(".", `\.`, "+", `\+`, "*", `\*`).Replace(s)
}

// searchCount is the totalCount of a search (as the operator when as is "").
func (s *state) searchCount(t *testing.T, as, q string, regex bool) int {
	t.Helper()
	args := []string{"search", "--include-tools", "--limit", "all", "--jq", ".totalCount"}
	if as != "" {
		args = append([]string{"--as", as}, args...)
	}
	if regex {
		args = append(args, "--regex")
	}
	code, out := s.cli(append(args, "--", q)...)
	if code != 0 {
		t.Fatalf("search %q: exit %d", q, code)
	}
	var n int
	if _, err := fmt.Sscan(out, &n); err != nil {
		t.Fatalf("search %q: %q", q, out)
	}
	return n
}
