package mcpserver

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/yosida95/uritemplate/v3"
)

// Transcripts are resources. A session's transcript is named
//
//	openclaw-session://AGENT/KEY{?context,before,limit}
//
// AGENT is the session's agentId, KEY its key as sessions_list gives it,
// percent-encoded as RFC 6570 expands a simple variable (everything but
// ALPHA, DIGIT, "-", ".", "_", "~": "agent:main:main" is
// "agent%3Amain%3Amain"); context is the named gateway the session lives
// on when the server serves a fleet (several --context, or all); before is
// the nextCursor of a page already read, for the page before it; limit is
// the page's size (1-1000, default 200). Reading one returns the page as
// `sessions history --json` prints it (masked, prepared for an agent's
// context), whose hasMore and nextCursor lead to the older page; the
// result's _meta.nextUri is that page's URI.
const (
	resourceScheme   = "openclaw-session"
	resourceTemplate = resourceScheme + "://{agentId}/{key}{?context,before,limit}"
	resourceMIME     = "application/json"
)

// defaultResourcePage is how many resources one resources/list page holds.
const defaultResourcePage = 100

// transcriptTemplate is parsed on first use (by the MCP server only).
var transcriptTemplate = sync.OnceValue(func() *uritemplate.Template { return uritemplate.MustNew(resourceTemplate) })

// addResources registers the transcript template: it is what a client
// builds a URI from (and what makes the server announce resources); the
// listing itself is listResources, over the sessions as they are now.
func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name: "transcript", Title: "A session's transcript, page by page",
		Description: "The newest page of a session's transcript (agentId and key from sessions_list or resources/list), " +
			"as sessions_history returns it. When hasMore is true, read the same URI with before=nextCursor (or the " +
			"result's _meta.nextUri) for the older page. context: the gateway context of a fleet's session; " +
			"limit: the page's size (1-1000, default 200).",
		URITemplate: resourceTemplate, MIMEType: resourceMIME,
	}, s.readResource)
}

// transcriptURI is the URI of a page of the session (agent, key) on
// context ("" on one host), before a cursor ("" for the newest page) with
// limit messages (0: the default).
func transcriptURI(agent, key, context, before string, limit int) string {
	v := uritemplate.Values{}
	v.Set("agentId", uritemplate.String(agent))
	v.Set("key", uritemplate.String(key))
	if context != "" {
		v.Set("context", uritemplate.String(context))
	}
	if before != "" {
		v.Set("before", uritemplate.String(before))
	}
	if limit > 0 {
		v.Set("limit", uritemplate.String(strconv.Itoa(limit)))
	}
	u, err := transcriptTemplate().Expand(v)
	if err != nil {
		panic(fmt.Sprintf("expanding %s: %v", resourceTemplate, err))
	}
	return u
}

// transcriptRef is what a transcript URI names.
type transcriptRef struct {
	agent, key, context, before string
	limit                       int
}

// parseTranscriptURI reads a transcript URI. A URI that names no
// transcript is not found (as a URI of no template is); a page that
// cannot be (a bad limit) is a usage error.
func parseTranscriptURI(raw string) (transcriptRef, error) {
	var r transcriptRef
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != resourceScheme || u.Host == "" || u.User != nil || u.Fragment != "" {
		return r, mcp.ResourceNotFoundError(raw)
	}
	key, err := url.PathUnescape(strings.TrimPrefix(u.EscapedPath(), "/"))
	if err != nil || key == "" || strings.Contains(u.EscapedPath()[1:], "/") {
		return r, mcp.ResourceNotFoundError(raw)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return r, mcp.ResourceNotFoundError(raw)
	}
	for name, vs := range q {
		if len(vs) != 1 || !slices.Contains([]string{"context", "before", "limit"}, name) {
			return r, invalidParams(apperr.Usagef("%s: unknown or repeated parameter %q (a transcript URI takes context, before and limit once)", raw, name))
		}
	}
	r = transcriptRef{agent: u.Host, key: key, context: q.Get("context"), before: q.Get("before")}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > ops.HistoryMaxLimit {
			return r, invalidParams(apperr.Usagef("%s: invalid limit %q (1-%d)", raw, l, ops.HistoryMaxLimit))
		}
		r.limit = n
	}
	return r, nil
}

// opsOn is the operations layer of one resource read: as every tool's
// (masked), for the URI's agent and, on a fleet, the one context it names
// (which must be one the server serves). A URI without a context on a
// fleet cannot say which host's session it is.
func (s *Server) opsOn(uri string, r transcriptRef) (*ops.Ops, error) {
	c := s.opts.Ops
	c.Redact = true
	sc, err := ops.New(c).Scope()
	if err != nil {
		return nil, err
	}
	c.Agent = r.agent
	switch {
	case r.context == "" && sc.Fleet:
		return nil, apperr.Usagef("%s: this server serves several gateways: a transcript URI names its context (?context=NAME, as resources/list gives it)", uri)
	case r.context == "":
	case !sc.Fleet || !slices.Contains(sc.Contexts, r.context):
		return nil, apperr.NotFoundf("%s: this server serves no context %s", uri, r.context)
	default:
		c.Gateway = gatewaysel.Selector{Contexts: []string{r.context}}
	}
	return ops.New(c), nil
}

// readResource reads a page of a transcript: the session must be one the
// requester may see (else, as for a URI that names none, the resource is
// not found).
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	r, err := parseTranscriptURI(uri)
	if err != nil {
		return nil, err
	}
	if r.before != "" {
		// a malformed cursor is refused before the URI's host is resolved
		if err := ops.CheckCursor(r.before); err != nil {
			return nil, resourceError(uri, err)
		}
	}
	op, err := s.opsOn(uri, r)
	if err != nil {
		return nil, resourceError(uri, err)
	}
	sess, page, err := op.OpenHistory(ctx, r.key, "", ops.HistoryQuery{Limit: cmp.Or(r.limit, defaultHistory), Before: r.before})
	if err != nil {
		return nil, resourceError(uri, err)
	}
	defer sess.Close()
	if sess.Agent != r.agent {
		// the key resolved to another agent's session: not this URI's
		return nil, mcp.ResourceNotFoundError(uri)
	}
	text, err := jsonText(page)
	if err != nil {
		return nil, resourceError(uri, err)
	}
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: resourceMIME, Text: text}}}
	if page.HasMore && page.NextCursor != "" {
		res.Meta = mcp.Meta{"nextUri": transcriptURI(r.agent, r.key, r.context, page.NextCursor, r.limit)}
	}
	return res, nil
}

// resourceError is err as the answer to a resources/read: a session that
// is not there or that the requester may not see is MCP's resource not
// found (-32002, whichever it is: a hidden session is not revealed); a bad
// URI parameter (a cursor) is invalid params; anything else an internal
// error worded as a tool error is ("state error (exit 10): …").
func resourceError(uri string, err error) error {
	switch apperr.CodeOf(err) {
	case apperr.CodeNotFound, apperr.CodeForbidden:
		return mcp.ResourceNotFoundError(uri)
	case apperr.CodeUsage:
		return invalidParams(err)
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: worded(err)}
}

func invalidParams(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: worded(err)}
}

// worded is err as a tool error's text says it: "not found (exit 4): …".
func worded(err error) string {
	code := apperr.CodeOf(err)
	name := codeNames[code]
	if name == "" {
		name = "error"
	}
	return fmt.Sprintf("%s (exit %d): %s", name, code, err.Error())
}

// listCursor is where a resources/list page ends: the last session it
// listed, in the listing's order (newest first; ties by context, agent,
// key). The next page starts after it, so every session present
// throughout is listed once however the pages are spaced; one updated in
// between moves to the front (a client that wants it reads the list again).
type listCursor struct {
	UpdatedAt float64 `json:"u"`
	Context   string  `json:"c,omitempty"`
	Agent     string  `json:"a"`
	Key       string  `json:"k"`
}

func (c listCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeListCursor(s string) (listCursor, error) {
	var c listCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		err = dec.Decode(&c)
	}
	if err != nil || c.Key == "" {
		return c, invalidParams(apperr.Usagef("invalid resources/list cursor %q: give the nextCursor of a page as it came", s))
	}
	return c, nil
}

func cursorOf(r ops.Row) listCursor {
	c := listCursor{UpdatedAt: -1, Context: r.Context, Agent: r.AgentID, Key: r.Key}
	if r.UpdatedAt != nil {
		c.UpdatedAt = *r.UpdatedAt
	}
	return c
}

// compareCursors orders the listing: newest first, then by context, agent
// and key.
func compareCursors(a, b listCursor) int {
	if c := cmp.Compare(b.UpdatedAt, a.UpdatedAt); c != 0 {
		return c
	}
	return cmp.Or(strings.Compare(a.Context, b.Context), strings.Compare(a.Agent, b.Agent), strings.Compare(a.Key, b.Key))
}

// listResources answers resources/list: a page of the transcripts of the
// sessions the requester may see (every agent's, or the --agent's), newest
// first, with the cursor of the next page.
func (s *Server) listResources(ctx context.Context, req *mcp.ListResourcesRequest) (*mcp.ListResourcesResult, error) {
	var after *listCursor
	if req.Params != nil && req.Params.Cursor != "" {
		c, err := decodeListCursor(req.Params.Cursor)
		if err != nil {
			return nil, err
		}
		after = &c
	}
	lr, err := s.ops("").List(ctx, ops.ListQuery{Limit: -1, AllAgents: s.opts.Ops.Agent == ""})
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: worded(err)}
	}
	rows := slices.Clone(lr.Sessions)
	slices.SortStableFunc(rows, func(a, b ops.Row) int { return compareCursors(cursorOf(a), cursorOf(b)) })
	if after != nil {
		i, _ := slices.BinarySearchFunc(rows, *after, func(r ops.Row, c listCursor) int { return compareCursors(cursorOf(r), c) })
		for i < len(rows) && compareCursors(cursorOf(rows[i]), *after) <= 0 {
			i++
		}
		rows = rows[i:]
	}
	size := cmp.Or(s.opts.ResourcePageSize, defaultResourcePage)
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	if len(rows) > size {
		rows = rows[:size]
		res.NextCursor = cursorOf(rows[size-1]).encode()
	}
	for _, r := range rows {
		res.Resources = append(res.Resources, transcriptResource(r))
	}
	return res, nil
}

// transcriptResource is the resource of the newest page of r's transcript.
func transcriptResource(r ops.Row) *mcp.Resource {
	title := cmp.Or(r.Label, r.DisplayName)
	desc := fmt.Sprintf("the transcript of %s (%s session", r.Key, r.Kind)
	if r.Channel != "" {
		desc += " on " + r.Channel
	}
	desc += " of agent " + r.AgentID
	if r.Context != "" {
		desc += ", context " + r.Context
	}
	desc += ")"
	res := &mcp.Resource{URI: transcriptURI(r.AgentID, r.Key, r.Context, "", 0), Name: r.Key, Title: title,
		Description: desc, MIMEType: resourceMIME}
	if r.UpdatedAt != nil {
		res.Annotations = &mcp.Annotations{LastModified: time.UnixMilli(int64(*r.UpdatedAt)).UTC().Format(time.RFC3339Nano)}
	}
	return res
}
