package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestFenceOutlastsBackticks(t *testing.T) {
	for body, want := range map[string]string{
		"plain":             "```",
		"has ``` inside":    "````",
		"has ```` inside":   "`````",
		"`one` and ``two``": "```",
	} {
		got := fence("text", []byte(body))
		if !strings.HasPrefix(got, want+"text\n") || !strings.HasSuffix(got, "\n"+want) {
			t.Errorf("fence(%q) = %q, want %s fences", body, got, want)
		}
	}
}

func TestMarkdownMessagesNumbering(t *testing.T) {
	msgs := []json.RawMessage{
		json.RawMessage(`{"role":"user","content":"hi","timestamp":1795236231000}`),
		json.RawMessage(`not json`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"mystery","x":1}],"model":"m"}`),
	}
	var b bytes.Buffer
	if err := MarkdownMessages(&b, msgs, 7); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"## 7. User · 2026-11-21 04:43:51Z\n\nhi\n",
		"## 8. Assistant (m)\n\n*[mystery block]*\n\n```json\n{\n  \"type\": \"mystery\",\n  \"x\": 1\n}\n```\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}
