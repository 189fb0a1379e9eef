// Package enginetest provides fake model providers for tests: an
// OpenAI-compatible chat-completions server and an Anthropic Messages server
// with scriptable replies and faults, usable in-process (NewOpenAI,
// NewAnthropic) or as the standalone binary cmd/fakellm.
//
// What a fake answers, first match wins:
//
//  1. markers in the last user message or the system prompt:
//     [[reply:TEXT]] (TEXT may not contain "]]"), [[echo]],
//     [[delay:DURATION]], [[status:CODE]], [[fault:hang|close-mid-body|non-json|empty]];
//  2. Options.Rules, in order: the first rule whose Contains occurs in the
//     system prompt or the last user message gives the reply (ReplySkip and
//     AnnounceSkip answer the agent-to-agent and sub-agent steps);
//  3. Options.Echo: the last user message, verbatim;
//  4. Options.Reply;
//  5. "MOCK reply #<n>: <first 80 chars of the last user message>", n being
//     the number of user messages — the same as the OpenClaw peer's mock LLM.
package enginetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// API kinds.
const (
	OpenAI    = "openai"    // POST …/chat/completions
	Anthropic = "anthropic" // POST …/messages
)

// Fault is a broken answer.
type Fault string

const (
	FaultNone         Fault = ""
	FaultHang         Fault = "hang"           // never answers (until the client gives up)
	FaultCloseMidBody Fault = "close-mid-body" // headers and half a body, then the connection closes
	FaultNonJSON      Fault = "non-json"       // an HTML page (with Status, or 200)
	FaultEmpty        Fault = "empty"          // OpenAI: "choices": []; Anthropic: no "content"
)

// Rule answers Reply when Contains occurs in the system prompt or the last
// user message.
type Rule struct {
	Contains string
	Reply    string
}

// Rules for the agent-to-agent flow (format §6.3) and the sub-agent announce.
var (
	ReplySkip    = Rule{Contains: "Agent-to-agent reply step", Reply: "REPLY_SKIP"}
	AnnounceSkip = Rule{Contains: "announce step", Reply: "ANNOUNCE_SKIP"}
)

// Usage overrides the token counts a fake reports.
type Usage struct {
	Prompt     int // total prompt tokens (OpenAI prompt_tokens includes CacheRead)
	Completion int
	CacheRead  int
	CacheWrite int // Anthropic only
}

// Options script a fake.
type Options struct {
	Reply        string
	Echo         bool
	Rules        []Rule
	Delay        time.Duration // before answering
	Status       int           // non-2xx: answer an error document with this status
	ErrorMessage string        // the error's message (default "fake provider error")
	Fault        Fault
	Usage        *Usage // nil: prompt ≈ len(messages JSON)/4, completion ≈ len(reply)/4
	// RequireKey, when set, makes requests without this API key (Bearer or
	// x-api-key) fail with 401.
	RequireKey string
}

// Recorded is one request a fake received.
type Recorded struct {
	Path     string
	Header   http.Header
	Body     []byte
	Request  map[string]any // the decoded body (nil if it was not JSON)
	System   string         // the system prompt
	LastUser string         // the text of the last user message
	Users    int            // number of user messages
	Reply    string         // what was answered ("" for errors and faults)
	Status   int            // the HTTP status answered (0 for hang/close faults)
}

// Fake is the http.Handler behind the servers.
type Fake struct {
	api     string
	mu      sync.Mutex
	opts    Options
	reqs    []Recorded
	closing chan struct{}
	once    sync.Once
}

// NewFake returns a handler for api (OpenAI or Anthropic).
func NewFake(api string, opts Options) *Fake {
	return &Fake{api: api, opts: opts, closing: make(chan struct{})}
}

// API is OpenAI or Anthropic.
func (f *Fake) API() string { return f.api }

// SetOptions changes the script for the following requests.
func (f *Fake) SetOptions(o Options) {
	f.mu.Lock()
	f.opts = o
	f.mu.Unlock()
}

// Requests returns a copy of the requests received so far.
func (f *Fake) Requests() []Recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Recorded(nil), f.reqs...)
}

// Last returns the last request received (zero Recorded if none).
func (f *Fake) Last() Recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.reqs) == 0 {
		return Recorded{}
	}
	return f.reqs[len(f.reqs)-1]
}

// Close releases handlers that are hanging or delaying.
func (f *Fake) Close() { f.once.Do(func() { close(f.closing) }) }

var (
	markerRE = regexp.MustCompile(`\[\[(reply|delay|status|fault):(.*?)\]\]`)
	echoRE   = regexp.MustCompile(`\[\[echo\]\]`)
)

func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/models") {
		writeJSON(w, 200, map[string]any{"object": "list", "data": []any{map[string]any{"id": "fake-1", "object": "model"}}})
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	f.mu.Lock()
	opts := f.opts
	f.mu.Unlock()
	rec := Recorded{Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	defer func() {
		f.mu.Lock()
		f.reqs = append(f.reqs, rec)
		f.mu.Unlock()
	}()
	want := "/chat/completions"
	if f.api == Anthropic {
		want = "/messages"
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, want) {
		rec.Status = 404
		f.writeError(w, 404, "not_found_error", "unsupported path "+r.URL.Path)
		return
	}
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		rec.Status = 400
		f.writeError(w, 400, "invalid_request_error", "request body is not JSON: "+err.Error())
		return
	}
	rec.Request = req
	rec.System, rec.LastUser, rec.Users = f.inspect(req)
	if opts.RequireKey != "" {
		got := r.Header.Get("x-api-key")
		if f.api == OpenAI {
			got = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		}
		if got != opts.RequireKey {
			rec.Status = 401
			f.writeError(w, 401, "authentication_error", "invalid api key")
			return
		}
	}

	// markers
	reply, haveReply := "", false
	for _, src := range []string{rec.LastUser, rec.System} {
		for _, m := range markerRE.FindAllStringSubmatch(src, -1) {
			switch m[1] {
			case "reply":
				if !haveReply {
					reply, haveReply = m[2], true
				}
			case "delay":
				if d, err := time.ParseDuration(strings.TrimSpace(m[2])); err == nil {
					opts.Delay = d
				}
			case "status":
				if n, err := strconv.Atoi(strings.TrimSpace(m[2])); err == nil {
					opts.Status = n
				}
			case "fault":
				opts.Fault = Fault(strings.TrimSpace(m[2]))
			}
		}
	}
	if !haveReply && (echoRE.MatchString(rec.LastUser) || echoRE.MatchString(rec.System)) {
		reply, haveReply = rec.LastUser, true
	}
	if !haveReply {
		for _, rule := range opts.Rules {
			if rule.Contains != "" && (strings.Contains(rec.System, rule.Contains) || strings.Contains(rec.LastUser, rule.Contains)) {
				reply, haveReply = rule.Reply, true
				break
			}
		}
	}
	switch {
	case haveReply:
	case opts.Echo:
		reply = rec.LastUser
	case opts.Reply != "":
		reply = opts.Reply
	default:
		flat := strings.Join(strings.Fields(rec.LastUser), " ")
		if r := []rune(flat); len(r) > 80 {
			flat = string(r[:80])
		}
		reply = fmt.Sprintf("MOCK reply #%d: %s", rec.Users, flat)
	}

	if opts.Delay > 0 {
		t := time.NewTimer(opts.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		case <-f.closing:
			t.Stop()
			return
		}
	}
	switch opts.Fault {
	case FaultHang:
		select {
		case <-r.Context().Done():
		case <-f.closing:
		}
		return
	case FaultCloseMidBody:
		closeMidBody(w)
		return
	case FaultNonJSON:
		st := opts.Status
		if st == 0 {
			st = 200
		}
		rec.Status = st
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(st)
		io.WriteString(w, "<html><head><title>Bad Gateway</title></head><body><h1>upstream error</h1></body></html>\n")
		return
	}
	if opts.Status != 0 && (opts.Status < 200 || opts.Status > 299) {
		msg := opts.ErrorMessage
		if msg == "" {
			msg = "fake provider error"
		}
		rec.Status = opts.Status
		f.writeError(w, opts.Status, errorType(opts.Status), msg)
		return
	}
	rec.Reply = reply
	rec.Status = 200
	u := Usage{}
	if opts.Usage != nil {
		u = *opts.Usage
	} else {
		msgs, _ := json.Marshal(req["messages"])
		u.Prompt = max(1, (len(msgs)+len(rec.System))/4)
		u.Completion = max(1, len(reply)/4)
	}
	model, _ := req["model"].(string)
	if f.api == Anthropic {
		resp := map[string]any{
			"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{
				"input_tokens": u.Prompt, "output_tokens": u.Completion,
				"cache_read_input_tokens": u.CacheRead, "cache_creation_input_tokens": u.CacheWrite,
			},
		}
		if opts.Fault != FaultEmpty {
			resp["content"] = []any{map[string]any{"type": "text", "text": reply}}
		}
		writeJSON(w, 200, resp)
		return
	}
	choices := []any{}
	if opts.Fault != FaultEmpty {
		choices = append(choices, map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": reply},
			"finish_reason": "stop",
		})
	}
	writeJSON(w, 200, map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": choices,
		"usage": map[string]any{
			"prompt_tokens": u.Prompt, "completion_tokens": u.Completion, "total_tokens": u.Prompt + u.Completion,
			"prompt_tokens_details": map[string]any{"cached_tokens": u.CacheRead},
		},
	})
}

// inspect extracts the system prompt, the last user text and the number of
// user messages of a request.
func (f *Fake) inspect(req map[string]any) (system, lastUser string, users int) {
	msgs, _ := req["messages"].([]any)
	var sys []string
	if s := contentText(req["system"]); s != "" {
		sys = append(sys, s)
	}
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		switch role {
		case "system", "developer":
			sys = append(sys, contentText(mm["content"]))
		case "user":
			// Anthropic tool results travel in user messages; they are
			// not what the user said
			if t, only := userText(mm["content"]); !only {
				users++
				lastUser = t
			}
		}
	}
	return strings.Join(sys, "\n\n"), lastUser, users
}

// userText returns the text of a user message's content and whether it
// carries only tool results.
func userText(c any) (string, bool) {
	if arr, ok := c.([]any); ok && len(arr) > 0 {
		onlyResults := true
		for _, p := range arr {
			pm, _ := p.(map[string]any)
			if pm["type"] != "tool_result" {
				onlyResults = false
			}
		}
		if onlyResults {
			return "", true
		}
	}
	return contentText(c), false
}

// contentText is the text of a string or an array of text parts.
func contentText(c any) string {
	switch x := c.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, p := range x {
			pm, _ := p.(map[string]any)
			if t, _ := pm["type"].(string); t == "text" {
				s, _ := pm["text"].(string)
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

func errorType(status int) string {
	switch {
	case status == 401:
		return "authentication_error"
	case status == 429:
		return "rate_limit_error"
	case status >= 500:
		return "api_error"
	}
	return "invalid_request_error"
}

func (f *Fake) writeError(w http.ResponseWriter, status int, typ, msg string) {
	if f.api == Anthropic {
		writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
		return
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// closeMidBody announces a 4 KiB JSON body, sends a part of it and closes
// the connection.
func closeMidBody(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	bw := bufio.NewWriter(conn)
	_ = buf
	fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n")
	bw.WriteString(`{"id":"chatcmpl-fake","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"partial`)
	bw.Flush()
}
