package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkBytes is what the SDK's JSON-RPC layer writes for a result (its
// marshalling: an Encoder without HTML escaping, the newline trimmed).
func sdkBytes(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func textResult(t *testing.T, doc any) *mcp.CallToolResult {
	t.Helper()
	text, err := jsonText(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(text)}
}

// TestEncodedResultIsTheSDKsBytes: an answer encoded in one pass is byte
// for byte what the SDK writes for the *mcp.CallToolResult it stands for,
// whatever the document's strings hold (HTML's characters, which the SDK
// escapes in both copies; line separators; quotes and control characters;
// invalid UTF-8; raw messages).
func TestEncodedResultIsTheSDKsBytes(t *testing.T) {
	docs := []any{
		map[string]any{"count": 0, "sessions": []any{}},
		map[string]any{"label": `<b>"a" & 'b'</b>`, "text": "line\u2028sep\u2029para\n\ttab\x01 é 日本 \\ /"},
		map[string]any{"bad": "\xff\xfe invalid", "msgs": []json.RawMessage{json.RawMessage(`{"role":"user","content":"<x>&"}`)}},
		struct {
			N   *int    `json:"n"`
			F   float64 `json:"f"`
			Key string  `json:"key"`
		}{nil, 1.5e-7, "agent:main:main"},
	}
	for _, doc := range docs {
		r := textResult(t, doc)
		want := sdkBytes(t, r)
		e, ok := encoded(r).(*encodedResult)
		if !ok {
			t.Fatalf("%v: not encoded", doc)
		}
		if got := sdkBytes(t, e); !bytes.Equal(got, want) {
			t.Errorf("encoded:\n%s\nthe SDK's:\n%s", got, want)
		}
		// _meta set after the tool (the SDK's server info), even one
		// that holds the mark
		e.SetMeta(map[string]any{"k": "v", "content": []any{map[string]any{"type": "text", "text": ""}}, "structuredContent": 0})
		want = sdkBytes(t, &mcp.CallToolResult{Meta: r.Meta, Content: r.Content, StructuredContent: r.StructuredContent})
		if !bytes.Contains(want, []byte(`"_meta":{`)) {
			t.Fatalf("no _meta in %s", want)
		}
		if got := sdkBytes(t, e); !bytes.Equal(got, want) {
			t.Errorf("with _meta:\n%s\nthe SDK's:\n%s", got, want)
		}
	}
}

// TestEncodedOnlyPlainAnswers: what encoded leaves to the SDK.
func TestEncodedOnlyPlainAnswers(t *testing.T) {
	differ := textResult(t, map[string]int{"a": 1})
	differ.StructuredContent = json.RawMessage(`{"a":2}`)
	for name, r := range map[string]*mcp.CallToolResult{
		"error":            {IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, StructuredContent: json.RawMessage(`"x"`)},
		"other structured": differ,
		"annotated":        {Content: []mcp.Content{&mcp.TextContent{Text: "1", Annotations: &mcp.Annotations{Priority: 1}}}, StructuredContent: json.RawMessage(`1`)},
		"two blocks": func() *mcp.CallToolResult {
			r := textResult(t, 1)
			r.Content = append(r.Content, &mcp.TextContent{Text: "1"})
			return r
		}(),
	} {
		if got := encoded(r); got != mcp.Result(r) {
			t.Errorf("%s: encoded", name)
		}
	}
}
