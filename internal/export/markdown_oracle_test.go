package export

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/render"
)

// The export's Markdown of a message is history's (internal/render), read
// with gjson instead of encoding/json: the same bytes for every message of
// both fixtures, the hostile transcript and the odd shapes (but for a
// message history's Markdown passes over).
func TestMarkdownIsHistorys(t *testing.T) {
	msgs := hostileMessages("http://127.0.0.1:9")
	for _, s := range []string{
		`{"role":"user","content":null}`, `{"role":"user"}`, `{"role":"user","content":[1,"a"]}`, `{"role":"user","content":{"a":1}}`,
		`{"role":"assistant","content":[{"type":"weird","z":1,"a":"<&>"},{"type":"image","mimeType":"image/png","bytes":12,"omitted":true},{"type":"image"},{"type":"toolCall","name":"n"}],"errorMessage":"bad\n  thing","model":"m","timestamp":"2026-11-21T04:43:35.128Z"}`,
		`{"role":"toolResult","toolName":"t","isError":true,"content":null}`, `{"role":"toolResult","content":"{\"a\": [1,2]}"}`,
		`{"role":"toolResult","content":[{"type":"text","text":"x"},{"type":"image","data":"QUJD","mimeType":"image/gif"},{"type":"odd","b":2}]}`,
		"{\"role\":\"toolResult\",\"content\":\"has ``` fences ````\"}", `{"role":"custom","content":"  "}`, `{"role":"","content":[{"type":"text","text":"x"}],"timestamp":12.5}`,
	} {
		msgs = append(msgs, json.RawMessage(s))
	}
	for _, fx := range []string{"state-2026.1.30", "state-2026.9.6"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", fx, "agents", "*", "sessions", "*.jsonl"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			for _, ln := range bytes.Split(b, []byte("\n")) {
				var l struct {
					Message json.RawMessage `json:"message"`
				}
				if json.Unmarshal(ln, &l) == nil && len(l.Message) > 0 {
					msgs = append(msgs, l.Message)
				}
			}
		}
	}
	if len(msgs) < 60 {
		t.Fatalf("only %d messages", len(msgs))
	}
	for i, m := range msgs {
		var want bytes.Buffer
		if err := render.MarkdownMessages(&want, []json.RawMessage{m}, i+1); err != nil {
			t.Fatal(err)
		}
		if want.Len() == 0 {
			// history's Markdown passes over a message whose timestamp is a
			// string (its decoding fails); an export never drops one.
			continue
		}
		var got strings.Builder
		h := readHead(m)
		mdMessage(&got, i+1, &h)
		if got.String() != want.String() {
			t.Errorf("message %d (%.100s):\n got %.300q\nwant %.300q", i+1, m, got.String(), want.String())
		}
	}
}
