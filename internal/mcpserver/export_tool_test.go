package mcpserver_test

import (
	"fmt"
	"os"
	"path/filepath"
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

// A conversation longer than a page: sessions_export answers it in pages of
// at most 80 KiB, chained by nextFrom, which hold every message once and in
// order; the masked secret planted in each message never shows.
func TestExportToolPages(t *testing.T) {
	s := newState(t, "state-2026.1.30")
	f := filepath.Join(s.dir, "agents", "main", "sessions", "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	const extra = 300
	filler := strings.Repeat("lorem ipsum ", 85) // ~1 KiB a message
	for i := 1; i <= extra; i++ {
		b = fmt.Appendf(b, `{"type":"message","id":"p%d","parentId":"x","timestamp":"2026-11-21T06:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"msg-%d token ghp_Q7xV2mN9pL4kR8sT1wY6zB3cD5fG0hJ2aE7u %s"}],"timestamp":%d}}`+"\n", i, i, filler, 1795240800000+i)
	}
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cs := transports[0].connect(t, s.server(false), nil)
	var seen []string
	from := ""
	for pages := 0; ; pages++ {
		if pages > 20 {
			t.Fatal("pages never end")
		}
		args := map[string]any{"sessionKey": "main"}
		if from != "" {
			args["from"] = from
		}
		got := ok(t, cs, "sessions_export", args)
		md := got["markdown"].(string)
		if n := int(got["bytes"].(float64)); n > 80<<10 || len(md) > 80<<10+200 {
			t.Errorf("page from %q: %d bytes (%d written), over 80 KiB", from, n, len(md))
		}
		if strings.Contains(md, "Q7xV2mN9pL4kR8sT1wY6z") {
			t.Fatalf("page from %q holds the planted secret", from)
		}
		for _, ln := range strings.Split(md, "\n") {
			if i := strings.Index(ln, "msg-"); i >= 0 {
				seen = append(seen, strings.Fields(ln[i:])[0])
			}
		}
		if got["hasMore"] != true {
			break
		}
		if pages == 0 && got["nextFrom"] == "" {
			t.Fatal("hasMore without nextFrom")
		}
		from = got["nextFrom"].(string)
	}
	if len(seen) != extra {
		t.Fatalf("the pages held %d of the %d long messages", len(seen), extra)
	}
	for i, m := range seen {
		if m != fmt.Sprintf("msg-%d", i+1) {
			t.Fatalf("message %d of the pages is %s", i+1, m)
		}
	}
}
