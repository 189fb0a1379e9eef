package mcpserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A credential in a transcript reaches no agent through a tool: the
// operator's CLI shows it as stored, sessions_history masks it.
func TestHistoryToolMasksCredentials(t *testing.T) {
	const secret = "sk-abcdefghijklmnop1234"
	s := newState(t, "state-2026.1.30")
	p := filepath.Join(s.dir, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const text = "MOCK: tool read returned 18 chars: - ship peer tests"
	if !strings.Contains(string(b), text) {
		t.Fatal("fixture text moved")
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), text, "use "+secret+" please", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, out := s.cli("history", "main", "--json"); !strings.Contains(out, secret) {
		t.Fatalf("the operator's history lost the stored text: %s", out)
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, s.server(true), nil)
			page := ok(t, cs, "sessions_history", map[string]any{"sessionKey": "main", "limit": 5})
			doc, _ := json.Marshal(page)
			if strings.Contains(string(doc), secret) || !strings.Contains(string(doc), "use sk-abc…1234 please") || page["redacted"] != true {
				t.Errorf("sessions_history: %s", doc)
			}
		})
	}
}
