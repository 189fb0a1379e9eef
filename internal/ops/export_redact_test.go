package ops

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/export"
)

// A secret in a text, a tool's arguments and its result: --redact (and a
// requester) gets none of them in any format, and the page says it was
// masked; the operator without --redact gets them as stored.
func TestExportRedacts(t *testing.T) {
	const secret = "ghp_Q7xV2mN9pL4kR8sT1wY6zB3cD5fG0hJ2aE7u"
	plant := func(t *testing.T, dir string) {
		f := filepath.Join(dir, "agents", "main", "sessions", "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
		b, _ := os.ReadFile(f)
		b = append(b, []byte(`{"type":"message","id":"s1","parentId":null,"timestamp":"2026-11-21T05:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"my token is `+secret+`"}],"timestamp":1795237200000}}
{"type":"message","id":"s2","parentId":"s1","timestamp":"2026-11-21T05:00:01.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"use `+secret+`"},{"type":"toolCall","id":"c9","name":"exec","arguments":{"cmd":"curl -H 'Authorization: Bearer `+secret+`'","token":"`+secret+`"}}],"model":"m","timestamp":1795237201000}}
{"type":"message","id":"s3","parentId":"s2","timestamp":"2026-11-21T05:00:02.000Z","message":{"role":"toolResult","toolCallId":"c9","toolName":"exec","content":[{"type":"text","text":"GITHUB_TOKEN=`+secret+`"}],"details":{"env":"`+secret+`"},"timestamp":1795237202000}}
`)...)
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mid := secret[8:30]
	for _, c := range []struct {
		name string
		cfg  Config
		env  map[string]string
	}{
		{"--redact", Config{Redact: true}, nil},
		{"requester", Config{}, map[string]string{"OPENCLAW_SESSION_KEY": "agent:main:main"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, dir := fixtureOps(t, "state-2026.1.30", c.env, c.cfg)
			plant(t, dir)
			for _, f := range []export.Format{export.Markdown, export.JSON, export.JSONL, export.HTML} {
				out, res := exportOf(t, o, "main", ExportQuery{Format: f})
				if strings.Contains(out, mid) {
					i := strings.Index(out, mid)
					t.Errorf("%s: the secret is in the export: …%s…", f, out[max(0, i-100):min(len(out), i+60)])
				}
				if !res.Redacted || res.Messages != 20 {
					t.Errorf("%s: redacted %v, %d messages", f, res.Redacted, res.Messages)
				}
				switch f {
				case export.HTML:
					if !strings.Contains(out, `id="redacted"`) {
						t.Error("html: the page does not say it was redacted")
					}
				case export.Markdown:
					if !strings.Contains(out, "- Redacted: ") {
						t.Error("markdown: no redaction fact")
					}
				}
			}
		})
	}
	o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{})
	plant(t, dir)
	if out, _ := exportOf(t, o, "main", ExportQuery{Format: export.Markdown}); !strings.Contains(out, secret) {
		t.Error("the operator's export without --redact lost the secret: the planting did not take")
	}
}

// Pages of a capped export (an agent's sessions_export) chain by NextFrom
// and hold every message once, each page within the cap.
func TestExportPages(t *testing.T) {
	o, _ := fixtureOps(t, "state-2026.1.30", nil, Config{Redact: true})
	const capBytes = 2500
	var seen []int
	from := ""
	for pages := 0; ; pages++ {
		if pages > 40 {
			t.Fatal("pages never end")
		}
		out, res := exportOf(t, o, "main", ExportQuery{Format: export.Markdown, From: from, MaxBytes: capBytes})
		body := out[:strings.LastIndex(out, "\n---\n\nTotals:")]
		if len(body) > capBytes+100 {
			t.Errorf("page from %q: %d bytes over a cap of %d", from, len(body), capBytes)
		}
		seen = append(seen, seqsOf(out)...)
		if !res.HasMore {
			break
		}
		from = res.NextFrom
	}
	want := make([]int, 17)
	for i := range want {
		want[i] = i + 1
	}
	if !equalInts(seen, want) {
		t.Errorf("pages held %v", seen)
	}
}
