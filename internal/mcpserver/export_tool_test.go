package mcpserver_test

import (
	"strings"
	"testing"
)

// sessions_export answers Markdown of the whole conversation, masked, on
// both eras and transports; a range is stated and kept.
func TestExportTool(t *testing.T) {
	for _, fx := range fixtures {
		for _, tr := range transports {
			t.Run(fx+"/"+tr.name, func(t *testing.T) {
				s := newState(t, fx)
				cs := tr.connect(t, s.server(false), nil)
				hist := ok(t, cs, "sessions_history", map[string]any{"sessionKey": "main", "includeTools": true, "limit": 1000})
				n := len(hist["messages"].([]any))
				got := ok(t, cs, "sessions_export", map[string]any{"sessionKey": "main"})
				md, _ := got["markdown"].(string)
				if int(got["messages"].(float64)) != n || got["hasMore"] != false || got["redacted"] != true {
					t.Errorf("export of main: %v messages (history has %d), hasMore %v, redacted %v", got["messages"], n, got["hasMore"], got["redacted"])
				}
				if !strings.HasPrefix(md, "# Session main\n") || !strings.Contains(md, "- Redacted: ") || strings.Count(md, "\n## ") != n {
					t.Errorf("markdown:\n%.800s", md)
				}
				r := ok(t, cs, "sessions_export", map[string]any{"sessionKey": "main", "from": "2", "to": "3"})
				if md := r["markdown"].(string); !strings.Contains(md, "- Range: from message 2 to message 3 (inclusive)\n") || strings.Count(md, "\n## ") != 2 {
					t.Errorf("range:\n%.800s", md)
				}
			})
		}
	}
}
