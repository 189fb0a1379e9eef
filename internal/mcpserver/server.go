// Package mcpserver serves OpenClaw's session tools (sessions_list,
// sessions_history, sessions_send, sessions_spawn, sessions_search …) over
// the Model Context Protocol, on the operations layer: every tool call is
// one operation of a fresh *ops.Ops, and its structured result is the
// document the CLI prints with --json.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/ops"
)

// Options configure a server.
type Options struct {
	// Ops is the configuration every tool call's operations layer is built
	// from (the global flags and the environment); a call naming an agent
	// (agentId) overrides Agent for that call only. Without a Cache the
	// server makes one: its calls share the stores they parsed.
	Ops ops.Config
	// ReadOnly: only the tools that read are listed, and a call of one that
	// writes is refused.
	ReadOnly bool
	// Version is the server's version, as the client is told.
	Version string
	// ResourcePageSize is how many transcripts one resources/list page
	// lists (0: 100).
	ResourcePageSize int
	// HTTP bounds what a client of the HTTP transport can hold.
	HTTP HTTPLimits
	// InsecureBind is --insecure-bind: the HTTP transport is bound for
	// other hosts and takes a request whatever host it names (Host);
	// without it only loopback names are answered (httpserve.Access).
	InsecureBind bool
}

// Server is the MCP server of the session tools.
type Server struct {
	opts  Options
	mcp   *mcp.Server
	write map[string]bool // the names of the tools that write
}

// New builds the server and registers its tools.
func New(o Options) *Server {
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Ops.Cache == nil {
		// every call's Ops shares the stores parsed by earlier calls, each
		// checked again against its files on every call
		o.Ops.Cache = ops.NewStoreCache()
	}
	s := &Server{opts: o, write: map[string]bool{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "sessions", Title: "OpenClaw sessions", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions})
	s.mcp.AddReceivingMiddleware(s.guard)
	s.mcp.AddReceivingMiddleware(s.detach) // added last: the outermost
	s.addTools()
	s.addResources()
	return s
}

// MCP is the SDK server (to run it on a transport).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one client over t (stdio: &mcp.StdioTransport{}) until it
// disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error { return s.mcp.Run(ctx, t) }

const instructions = `OpenClaw's session tools: list sessions (sessions_list), read a transcript page by page
(sessions_history, with its nextCursor as "before"), search transcripts (sessions_search: words ranked by relevance, or mode literal for an exact string), show one
session (sessions_show), send a message into a session and wait for its reply (sessions_send,
then sessions_wait with the runId if it timed out), spawn a sub-agent (sessions_spawn), usage
(sessions_usage), list send and spawn runs (sessions_runs), check the state dir (sessions_doctor),
change a session's label or send policy (sessions_patch), and delete, reset or archive sessions
(sessions_delete, sessions_reset, sessions_archive; dryRun says what would be done). Sessions are named by their key (from sessions_list), their sessionId or
their label. A failed call says why and what it means, e.g. "not found (exit 4): ...".
Transcripts are also resources (resources/list, newest first): openclaw-session://AGENT/KEY
(the key percent-encoded; ?context=NAME on a fleet) is the newest page, as sessions_history returns
it; when hasMore is true, the same URI with before=nextCursor (the result's _meta.nextUri) is the older page.`

// ops builds the operations layer of one call: fresh, so that nothing a
// previous call opened is served stale (the parsed stores it shares with
// other calls, Config.Cache, are checked against their files first); agent (agentId) overrides the
// configured agent when given. Every tool's answer goes to an agent:
// transcript text is always masked.
func (s *Server) ops(agent string) *ops.Ops {
	c := s.opts.Ops
	c.Redact = true
	if a := strings.TrimSpace(agent); a != "" {
		c.Agent = a
	}
	return ops.New(c)
}

// guard is the middleware every request passes: resources/list is
// answered from the sessions as they are (listResources), a panic while
// listing or reading a resource becomes an internal error, a tool that writes is
// refused on a read-only server (it is not listed either, but a client may
// call it by name), a panic in a tool becomes a tool error, and the SDK's
// own tool errors (arguments that do not match the input schema) are worded
// like ours.
func (s *Server) guard(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		if method == "resources/list" || method == "resources/read" {
			defer func() {
				if p := recover(); p != nil {
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error in %s: %v", method, p)}
				}
			}()
		}
		if list, ok := req.(*mcp.ListResourcesRequest); ok && method == "resources/list" {
			// the transcripts are listed as the sessions are now, not
			// from resources registered ahead
			return s.listResources(ctx, list)
		}
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || method != "tools/call" {
			return next(ctx, method, req)
		}
		name := call.Params.Name
		if s.opts.ReadOnly && s.write[name] {
			return errorResult(apperr.Forbiddenf("%s writes, and this server is read-only (--read-only): only the tools that read are available", name)), nil
		}
		defer func() {
			if p := recover(); p != nil {
				res, err = errorResult(apperr.Errorf("internal error in %s: %v", name, p)), nil
			}
		}()
		if stuckCall != nil {
			stuckCall(name)
		}
		res, err = next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil {
			if r.IsError {
				rewordArgumentError(r)
			} else {
				res = encoded(r)
			}
		}
		return res, err
	}
}

// rewordArgumentError words the SDK's refusal of arguments (schema
// validation, unmarshalling) as a usage error; our own errors are worded
// already.
func rewordArgumentError(r *mcp.CallToolResult) {
	if len(r.Content) == 0 {
		return
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok || strings.Contains(tc.Text, "(exit ") {
		return
	}
	msg := strings.TrimPrefix(tc.Text, `validating "arguments": `)
	msg = strings.TrimPrefix(msg, "validating root: ")
	*r = *errorResult(apperr.Usagef("%s", msg))
}

// codeNames name the exit codes in a tool error's text.
var codeNames = map[int]string{
	apperr.CodeError:     "error",
	apperr.CodeUsage:     "invalid arguments",
	apperr.CodeForbidden: "forbidden",
	apperr.CodeNotFound:  "not found",
	apperr.CodeTimeout:   "timeout",
	apperr.CodeState:     "state error",
	apperr.CodeLock:      "lock timeout",
}

// errorResult is err as a tool error: its text says what the error means
// and its CLI exit code ("not found (exit 4): No session found: x"), and
// a second text block is the JSON document the CLI prints on failure with
// --json ({"status","error"} and what the error carries, e.g. a run id).
func errorResult(err error) *mcp.CallToolResult {
	code := apperr.CodeOf(err)
	name := codeNames[code]
	if name == "" {
		name = "error"
	}
	msg := err.Error()
	doc := map[string]any{"status": apperr.StatusOf(err), "error": msg}
	var ae *apperr.Error
	if errors.As(err, &ae) {
		for k, v := range ae.Extra {
			doc[k] = v
		}
	}
	text := fmt.Sprintf("%s (exit %d): %s", name, code, msg)
	if id, ok := doc["runId"].(string); ok && id != "" && !strings.Contains(msg, id) {
		text += fmt.Sprintf(" (run %s goes on: sessions_wait with this runId gets its reply)", id)
	}
	b, _ := json.Marshal(doc)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}, &mcp.TextContent{Text: string(b)}}}
}
