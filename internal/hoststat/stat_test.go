package hoststat_test

import (
	"testing"

	"github.com/openclaw/sessions/internal/hoststat"
)

// AgentWith sums with what it is given; with SumTranscripts it is Agent.
func TestAgentWith(t *testing.T) {
	s, _ := open(t, "state-2026.1.30")
	if a, w := hoststat.Agent(s, "main"), hoststat.AgentWith(s, "main", hoststat.SumTranscripts); a.Transcripts != w.Transcripts || a.SessionsJSON != w.SessionsJSON {
		t.Errorf("Agent %+v, AgentWith %+v", a, w)
	}
	f := hoststat.AgentWith(s, "main", func(string) (int64, error) { return 42, nil })
	if f.Transcripts != 42 || len(f.Errs) != 0 {
		t.Errorf("%+v", f)
	}
}
