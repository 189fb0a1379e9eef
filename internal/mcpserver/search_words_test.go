package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/ops"
)

// OpenClaw 2026.9's own sessions_search takes {query, sessionKey, limit}
// and answers the best matches first; the same call here is a words query
// ranked by relevance — the document `search --words --rank relevance`
// prints — and the literal mode is still there by name.
func TestSearchOpenClawArguments(t *testing.T) {
	for _, fx := range fixtures {
		for _, tr := range transports {
			t.Run(fx+"/"+tr.name, func(t *testing.T) {
				s := newState(t, fx)
				cs := tr.connect(t, s.server(false), nil)
				cases := []struct {
					args map[string]any
					cli  []string
				}{
					{map[string]any{"query": "hello peer"}, []string{"search", "--words", "--rank", "relevance", "--limit", "10", "hello peer"}},
					{map[string]any{"query": "  MOCK  ", "limit": 25}, []string{"search", "--words", "--rank", "relevance", "--limit", "25", "MOCK"}},
					{map[string]any{"query": "mock", "sessionKey": "main", "limit": 1}, []string{"search", "--words", "--rank", "relevance", "--limit", "1", "--key", "main", "mock"}},
					{map[string]any{"query": "MOCK reply", "rank": "newest"}, []string{"search", "--words", "--limit", "10", "MOCK reply"}},
					{map[string]any{"query": "MOCK", "mode": "literal"}, []string{"search", "MOCK"}},
				}
				for _, c := range cases {
					got := ok(t, cs, "sessions_search", c.args)
					if want := s.cliDoc(c.cli...); !sameJSON(got, want) {
						t.Errorf("sessions_search %v:\n got %v\nwant %v", c.args, got, want)
					}
				}
				// scores descend, and every hit of a ranked answer has one
				doc := ok(t, cs, "sessions_search", map[string]any{"query": "MOCK reply", "limit": 25})
				hits, _ := doc["hits"].([]any)
				if len(hits) < 2 {
					t.Fatalf("MOCK reply: %d hits", len(hits))
				}
				last := 1e300
				for _, h := range hits {
					sc, isNum := h.(map[string]any)["score"].(float64)
					if !isNum || sc > last {
						t.Fatalf("scores out of order or missing: %v", hits)
					}
					last = sc
				}
				for _, c := range []struct {
					args map[string]any
					want string
				}{
					{map[string]any{"query": "x", "mode": "fuzzy"}, "fuzzy does not equal any of: [words literal]"},
					{map[string]any{"query": "x", "regex": true, "mode": "words"}, "regex needs mode literal"},
					{map[string]any{"query": "x", "mode": "literal", "rank": "relevance"}, "needs a words query"},
					{map[string]any{"query": "x", "rank": "best"}, "best does not equal any of: [relevance newest]"},
					{map[string]any{"query": "   "}, "the query is empty"}, // trimmed, as OpenClaw does
					{map[string]any{"query": `" "`}, "the query has no words"},
					{map[string]any{"query": strings.Repeat("a ", 2049)}, "at most 4096 characters"},
					{map[string]any{"query": "x", "sessionKey": "current"}, "sessionKey current needs a requester"},
				} {
					if got := fails(t, cs, "sessions_search", c.args); !strings.Contains(got, c.want) || !strings.Contains(got, "exit 2") {
						t.Errorf("sessions_search %v: %q, want %q (exit 2)", c.args, got, c.want)
					}
				}
			})
		}
	}
}

// sessionKey "current" is the requester's own session, as OpenClaw's
// tools read it.
func TestSearchCurrentSession(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			s := newState(t, fx)
			cs := connectMemory(t, s.server(false, func(c *ops.Config) { c.As = "agent:main:main" }), nil)
			cur := ok(t, cs, "sessions_search", map[string]any{"query": "MOCK", "sessionKey": "current", "limit": 25})
			named := ok(t, cs, "sessions_search", map[string]any{"query": "MOCK", "sessionKey": "agent:main:main", "limit": 25})
			if !sameJSON(cur, named) {
				t.Errorf("current:\n got %v\nwant %v", cur, named)
			}
			if n, _ := cur["count"].(float64); n == 0 {
				t.Errorf("current: no hits: %v", cur)
			}
		})
	}
}
