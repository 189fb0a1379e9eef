package mcpserver

import (
	"bytes"
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw/sessions/internal/export"
	"github.com/openclaw/sessions/internal/ops"
)

type exportIn struct {
	SessionKey string `json:"sessionKey,omitempty" jsonschema:"the session: its key (from sessions_list), sessionId or a unique sessionId prefix"`
	Label      string `json:"label,omitempty" jsonschema:"or the session with this label"`
	AgentID    string `json:"agentId,omitempty" jsonschema:"the agent whose session label names (default: the requester's)"`
	From       string `json:"from,omitempty" jsonschema:"start at: a message's sequence number (the nextFrom of an earlier page), a time (RFC 3339, 7d) or a line id"`
	To         string `json:"to,omitempty" jsonschema:"end at (inclusive): a sequence number, a time or a line id"`
	Last       int    `json:"last,omitempty" jsonschema:"only the last N messages of the range"`
	NoTools    bool   `json:"noTools,omitempty" jsonschema:"leave out tool calls and tool results"`
	NoThinking bool   `json:"noThinking,omitempty" jsonschema:"leave out thinking"`
}

type exportOut struct {
	*ops.ExportResult
	Markdown string `json:"markdown"`
}

func exportTool(s *Server) tool[exportIn] {
	return tool[exportIn]{
		name: "sessions_export", title: "Export a conversation as Markdown",
		desc: "A session's whole conversation (or a range of it), oldest first, as Markdown: a heading with the " +
			"session's facts and the range, one section per message (tool calls and results, thinking folded), the " +
			"totals. Credentials, tokens and keys are masked. A page holds at most 80 KiB; when hasMore is true, call " +
			"again with from=nextFrom (and the same to) for the next one.",
		input: func(in *jsonschema.Schema) {
			bounds(in, "last", 0, 1e9)
		},
		output: obj(map[string]any{
			"sessionKey":  str(),
			"sessionId":   str(),
			"format":      typ("string", "markdown"),
			"markdown":    typ("string", "the page"),
			"messages":    typ("integer", "the messages on the page"),
			"transcripts": typ("integer", "the transcripts read"),
			"redacted":    typ("boolean", "credentials were masked (always)"),
			"bytes":       typ("integer", "the page's size"),
			"truncated":   typ("boolean", "the page's one message was longer than the cap and was cut"),
			"hasMore":     typ("boolean", "messages of the range follow: pass nextFrom as from"),
			"nextFrom":    typ("string", "the sequence number the next page starts at"),
			"window":      typ("string", "over a gateway: chat.history's window cut the conversation"),
		}, "sessionKey", "markdown", "messages", "hasMore"),
		run: func(ctx context.Context, _ *mcp.CallToolRequest, in exportIn) (any, error) {
			if err := target(in.SessionKey, in.Label); err != nil {
				return nil, err
			}
			var b bytes.Buffer
			res, err := s.ops(in.AgentID).Export(ctx, in.SessionKey, in.Label, ops.ExportQuery{Format: export.Markdown,
				From: in.From, To: in.To, Last: in.Last, NoTools: in.NoTools, NoThinking: in.NoThinking, MaxBytes: ops.ExportPageBytes}, &b)
			if err != nil {
				return nil, err
			}
			return exportOut{ExportResult: res, Markdown: b.String()}, nil
		},
	}
}
