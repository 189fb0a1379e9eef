package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/ops"
)

// tool is one tool: its definition, whether it writes, how its inferred
// input schema is completed (bounds, enums, defaults), and what it does.
type tool[In any] struct {
	name, title, desc string
	writes            bool
	// destructive: a write that replaces or removes (not only adds).
	destructive bool
	// idempotent: a write that, repeated with the same arguments, changes
	// nothing more (a tool that reads always is).
	idempotent bool
	input      func(*jsonschema.Schema)
	output     map[string]any
	run        func(ctx context.Context, req *mcp.CallToolRequest, in In) (any, error)
}

// add registers t on s: a tool that writes is remembered as such, and on a
// read-only server it is not registered at all (guard refuses its calls).
func add[In any](s *Server, t tool[In]) {
	if t.writes {
		s.write[t.name] = true
		if s.opts.ReadOnly {
			return
		}
	}
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of %s: %v", t.name, err))
	}
	in.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	singleTypes(in)
	if t.input != nil {
		t.input(in)
	}
	ann := &mcp.ToolAnnotations{Title: t.title, ReadOnlyHint: !t.writes, IdempotentHint: !t.writes || t.idempotent,
		DestructiveHint: boolPtr(t.destructive), OpenWorldHint: boolPtr(false)}
	def := &mcp.Tool{Name: t.name, Title: t.title, Description: t.desc, InputSchema: in, OutputSchema: t.output, Annotations: ann}
	mcp.AddTool(s.mcp, def, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		out, err := t.run(ctx, req, in)
		if err != nil {
			return errorResult(err), nil, nil
		}
		// the text is the document as the CLI writes it (its field order),
		// and structuredContent is the same bytes: handed to the SDK as its
		// output, it would marshal the document again, unmarshal it to check
		// it against the output schema and marshal that once more — more
		// than the operation itself costs on a warm 10k listing. The schemas
		// are held by the tests (every answer checked against its tool's).
		text, err := jsonText(out)
		if err != nil {
			return errorResult(err), nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(text)}, nil, nil
	})
}

// jsonText is v as compact JSON, field order kept, no HTML escaping (as
// the CLI writes it).
func jsonText(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func boolPtr(b bool) *bool { return &b }

func floatPtr(f float64) *float64 { return &f }

// prop is the property name of s (it must exist: a misspelt name is a bug
// the first test finds).
func prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p := s.Properties[name]
	if p == nil {
		panic("no input property " + name)
	}
	return p
}

// bounds sets a numeric property's minimum (and maximum when max >= min).
func bounds(s *jsonschema.Schema, name string, min, max float64) {
	p := prop(s, name)
	p.Minimum = floatPtr(min)
	if max >= min {
		p.Maximum = floatPtr(max)
	}
}

// enum restricts a string property (or an array's items) to values.
func enum(s *jsonschema.Schema, name string, values ...string) {
	p := prop(s, name)
	if p.Items != nil {
		p = p.Items
	}
	for _, v := range values {
		p.Enum = append(p.Enum, v)
	}
}

// progressEvery is how often a waiting call reports progress.
const progressEvery = time.Second

// progress is the OnWait hook of a call: when the client gave a progress
// token, a notification as the wait starts and then every progressEvery
// until it ends (nil otherwise: nothing is sent).
func progress(ctx context.Context, req *mcp.CallToolRequest) ops.OnWait {
	if req == nil || req.Session == nil || req.Params == nil {
		return nil
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return nil
	}
	return func(target string) func() {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			t := time.NewTicker(progressEvery)
			defer t.Stop()
			for n := 0; ; n++ {
				msg := fmt.Sprintf("waiting for the reply of %s (%ds)", target, int(time.Since(start).Seconds()))
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(n), Message: msg})
				select {
				case <-stop:
					return
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		}()
		return func() { close(stop); wg.Wait() }
	}
}

// singleTypes gives every optional input one type: a pointer field is
// inferred as ["null", T], which clients that map a schema to one type
// (Gemini's function declarations among them) refuse, and which OpenClaw's
// own tool schemas never say — an optional parameter is left out, not null.
func singleTypes(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		if len(p.Types) == 2 && (p.Types[0] == "null" || p.Types[1] == "null") {
			t := p.Types[0]
			if t == "null" {
				t = p.Types[1]
			}
			p.Type, p.Types = t, nil
		}
		if p.Items != nil {
			singleTypes(p.Items)
		}
		singleTypes(p)
	}
}
