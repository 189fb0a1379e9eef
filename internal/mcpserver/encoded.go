package mcpserver

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodedResult is a tool's answer whose two copies of the document are
// encoded once, ahead. A tool's answer is its document twice (the text
// block, and the same bytes as structuredContent: see add), and the SDK's
// encoding of a *mcp.CallToolResult goes over both several times: the text
// is escaped by the text block's MarshalJSON and then compacted by the
// result's, structuredContent is compacted (and escaped) there, and the
// result's bytes are compacted once more as the JSON-RPC response's — on a
// warm listing of 10,000 sessions, more CPU than the listing itself. The
// bytes are the SDK's own: what the SDK adds to the result after the tool
// (_meta, resultType: the embedded result carries them) is encoded by the
// SDK around the two copies, and the JSON-RPC layer still compacts (and so
// validates) the whole once.
type encodedResult struct {
	*mcp.CallToolResult
	text []byte // the text block's string, escaped as encoding/json does
	raw  []byte // structuredContent, escaped as encoding/json does
}

// shellMark is where the two copies go in the encoding of a result whose
// text is empty and whose structuredContent is 0. A string holds no bare
// quote, so only the result's own fields can match it; the last match is
// the result's (its fields after content are scalars or omitted).
const shellMark = `"content":[{"type":"text","text":""}],"structuredContent":0`

func (r *encodedResult) MarshalJSON() ([]byte, error) {
	shell := *r.CallToolResult
	shell.Content = []mcp.Content{&mcp.TextContent{}}
	shell.StructuredContent = json.RawMessage("0")
	b, err := json.Marshal(&shell)
	i := bytes.LastIndex(b, []byte(shellMark))
	if err != nil || i < 0 {
		return json.Marshal(r.CallToolResult)
	}
	out := make([]byte, 0, len(b)+len(r.text)+len(r.raw)+len(shellMark))
	out = append(out, b[:i]...)
	out = append(out, `"content":[{"type":"text","text":`...)
	out = append(out, r.text...)
	out = append(out, `}],"structuredContent":`...)
	out = append(out, r.raw...)
	return append(out, b[i+len(shellMark):]...), nil
}

// encoded is r as an encodedResult when it is an answer of add: one text
// block whose bytes are structuredContent too, no error, nothing asked of
// the client; r itself otherwise.
func encoded(r *mcp.CallToolResult) mcp.Result {
	if r.IsError || r.InputRequests != nil || len(r.Content) != 1 {
		return r
	}
	t, ok := r.Content[0].(*mcp.TextContent)
	if !ok || t.Meta != nil || t.Annotations != nil {
		return r
	}
	raw, ok := r.StructuredContent.(json.RawMessage)
	if !ok || string(raw) != t.Text {
		return r
	}
	// as encoding/json writes them in a CallToolResult: the text block's
	// string with HTML escaping (its MarshalJSON is json.Marshal), and
	// structuredContent compacted with HTML escaping (the result's
	// MarshalJSON is json.Marshal too); the bytes are compact already
	// (jsonText), which the test holds
	text, err := json.Marshal(t.Text)
	if err != nil {
		return r
	}
	var esc bytes.Buffer
	esc.Grow(len(raw) + 64)
	json.HTMLEscape(&esc, raw)
	return &encodedResult{CallToolResult: r, text: text, raw: esc.Bytes()}
}
