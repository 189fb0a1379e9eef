package mcpserver_test

import (
	"encoding/json"
	"fmt"
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

// The texts of runs reach an agent masked in every tool that hands them
// out: sessions_send's and sessions_wait's reply, the reply of a spawn's
// run, sessions_runs' message and replies, sessions_show's run tasks. The
// operator's CLI shows them as stored.
func TestRunToolsMaskCredentials(t *testing.T) {
	const secret = "sk-abcdefghijklmnop1234"
	const masked = "sk-abc…1234"
	s := newState(t, "state-2026.1.30").withRunner()
	cs := connectMemory(t, s.server(false, realTime), nil)
	clean := func(t *testing.T, tool string, doc map[string]any, mustShow string) {
		t.Helper()
		b, _ := json.Marshal(doc)
		if strings.Contains(string(b), secret) || !strings.Contains(string(b), mustShow) {
			t.Errorf("%s: %s", tool, b)
		}
	}
	var sendRun, spawnRun string
	t.Run("sessions_send", func(t *testing.T) {
		doc := ok(t, cs, "sessions_send", map[string]any{"sessionKey": "main", "message": "key " + secret, "timeoutSeconds": 120})
		clean(t, "sessions_send", doc, "pong: key "+masked)
		sendRun, _ = doc["runId"].(string)
	})
	t.Run("sessions_wait", func(t *testing.T) {
		acc := ok(t, cs, "sessions_send", map[string]any{"sessionKey": "main", "message": "again " + secret, "timeoutSeconds": 0})
		doc := ok(t, cs, "sessions_wait", map[string]any{"runId": acc["runId"], "timeoutSeconds": 120})
		clean(t, "sessions_wait", doc, "pong: again "+masked)
	})
	t.Run("sessions_spawn", func(t *testing.T) {
		sp := ok(t, cs, "sessions_spawn", map[string]any{"task": "use " + secret, "cleanup": "keep"})
		clean(t, "sessions_spawn", sp, "accepted")
		spawnRun, _ = sp["runId"].(string)
		doc := ok(t, cs, "sessions_wait", map[string]any{"runId": spawnRun, "timeoutSeconds": 120})
		clean(t, "sessions_wait (spawn)", doc, masked)
	})
	t.Run("sessions_runs", func(t *testing.T) {
		doc := ok(t, cs, "sessions_runs", map[string]any{"limit": 0})
		clean(t, "sessions_runs", doc, "key "+masked)
		if _, out := s.cli("runs", "--limit", "all", "--json"); !strings.Contains(out, "key "+secret) {
			t.Errorf("the operator's runs lost the stored text: %.400s", out)
		}
	})
	t.Run("sessions_show", func(t *testing.T) {
		doc := ok(t, cs, "sessions_show", map[string]any{"sessionKey": "main"})
		clean(t, "sessions_show", doc, "key "+masked)
		if out := s.cliDoc("show", "main"); !strings.Contains(fmt.Sprint(out["runs"]), secret) {
			t.Errorf("the operator's show lost the stored text: %v", out["runs"])
		}
	})
	if sendRun == "" || spawnRun == "" {
		t.Fatal("no runs")
	}
}
