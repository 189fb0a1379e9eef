package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/ops"
)

// A session the server's requester may not see is answered by every tool
// that names a session exactly as one that does not exist, with the
// reference as given: no tool is a probe for what exists in another agent.
func TestToolsHideInvisibleSessions(t *testing.T) {
	s := newState(t, "state-2026.1.30") // agent-to-agent disabled: ops sees only ops
	cs := connectMemory(t, s.server(false, func(c *ops.Config) { c.As = "agent:ops:main" }), nil)
	const hidden, missing = "agent:main:signal:dm:+15551230001", "agent:main:signal:dm:+15551230009"
	for _, c := range []struct {
		tool string
		args func(ref string) map[string]any
	}{
		{"sessions_history", func(ref string) map[string]any { return map[string]any{"sessionKey": ref} }},
		{"sessions_show", func(ref string) map[string]any { return map[string]any{"sessionKey": ref} }},
		{"sessions_send", func(ref string) map[string]any {
			return map[string]any{"sessionKey": ref, "message": "hi", "timeoutSeconds": 0}
		}},
		{"sessions_patch", func(ref string) map[string]any { return map[string]any{"sessionKey": ref, "label": "x"} }},
		{"sessions_reset", func(ref string) map[string]any { return map[string]any{"sessionKey": ref, "dryRun": true} }},
	} {
		answer := func(ref string) string {
			res := call(t, cs, c.tool, c.args(ref))
			if !res.IsError {
				t.Fatalf("%s %s: not an error", c.tool, ref)
			}
			sc, _ := json.Marshal(res.StructuredContent)
			// the reference is the one thing that may differ
			return strings.ReplaceAll(text(res)+" "+string(sc), ref, "REF")
		}
		h, m := answer(hidden), answer(missing)
		if h != m {
			t.Errorf("%s: a hidden session is told from a missing one:\n hidden:  %s\n missing: %s", c.tool, h, m)
		}
		if !strings.Contains(h, "not found (exit 4): No session found: REF") {
			t.Errorf("%s: %s", c.tool, h)
		}
	}
}
