package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAnswerOnTheWire: an answer the server encodes itself keeps what the
// SDK adds after the tool on the current protocol (the server's identity
// in _meta, resultType), and its two copies of the document are the same.
func TestAnswerOnTheWire(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			srv := newState(t, fx).server(true)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			st, ct := mcp.NewInMemoryTransports()
			var wire bytes.Buffer
			done := make(chan error, 1)
			go func() { done <- srv.Run(ctx, &mcp.LoggingTransport{Transport: st, Writer: &wire}) }()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sessions_list", Arguments: map[string]any{"limit": 3}})
			if err != nil || res.IsError {
				t.Fatal(err, res)
			}
			_ = cs.Close()
			cancel()
			<-done
			var answer []byte
			sc := bufio.NewScanner(&wire)
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				if line, ok := strings.CutPrefix(sc.Text(), "write: "); ok && strings.Contains(line, `"structuredContent"`) {
					answer = []byte(line)
				}
			}
			var msg struct {
				Result struct {
					Meta              map[string]json.RawMessage `json:"_meta"`
					Content           []struct{ Type, Text string }
					StructuredContent json.RawMessage `json:"structuredContent"`
					ResultType        string          `json:"resultType"`
				} `json:"result"`
			}
			if err := json.Unmarshal(answer, &msg); err != nil {
				t.Fatalf("%v: %s", err, answer)
			}
			r := msg.Result
			if r.ResultType != "complete" || r.Meta["io.modelcontextprotocol/serverInfo"] == nil {
				t.Errorf("resultType %q, _meta %v: %s", r.ResultType, r.Meta, answer)
			}
			if len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != string(r.StructuredContent) ||
				!strings.Contains(r.Content[0].Text, `"limitApplied":3`) {
				t.Errorf("content %v, structuredContent %s", r.Content, r.StructuredContent)
			}
		})
	}
}
