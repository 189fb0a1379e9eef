package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openclaw/sessions/internal/engine/enginetest"
	"github.com/rogpeppe/go-internal/testscript"
)

// fakeLLMs are the fake model providers the scripts started, per script.
var fakeLLMs = struct {
	sync.Mutex
	m map[*testscript.TestScript]map[string]*fakeLLM
}{m: map[*testscript.TestScript]map[string]*fakeLLM{}}

type fakeLLM struct {
	fake *enginetest.Fake
	srv  *httptest.Server
	url  string
}

// fakeLLMCmd is the `fakellm` script command: an in-process fake model
// provider (internal/engine/enginetest) on 127.0.0.1 for the rest of the
// script, reachable by the detached runners the script's sends start.
//
//	fakellm start NAME openai|anthropic [OPTION...]
//	    start a fake; $NAME is its baseUrl (http://127.0.0.1:P/v1 for openai,
//	    http://127.0.0.1:P for anthropic); stopped when the script ends
//	fakellm set NAME [OPTION...]      re-script it (replaces all options)
//	fakellm config SRC DST            copy SRC to DST with @NAME@ replaced by
//	                                  the baseUrl of every fake started
//	fakellm log NAME FILE             write the requests it received, as text
//	fakellm count NAME N              require exactly N requests
//
// OPTIONS (enginetest.Options): reply=TEXT, echo, status=CODE, error=MSG,
// fault=hang|close-mid-body|non-json|empty, delay=DURATION,
// usage=PROMPT,COMPLETION[,CACHEREAD[,CACHEWRITE]], key=APIKEY (required
// key), rule=CONTAINS=>REPLY (repeatable; first match wins; matched against
// the system prompt and the last user message). Markers in prompts
// ([[reply:…]], [[status:…]], [[fault:…]], [[delay:…]]) work as documented
// in enginetest.
//
// The log format, one block per request:
//
//	#N PATH STATUS model=M
//	header NAME: VALUE          (authorization, x-api-key, anthropic-version, x-*)
//	params: K=V ...             (the body's scalar fields but model and system, sorted)
//	system: TEXT                (newlines as \n)
//	ROLE: TEXT                  (one line per message; tool calls as [toolCall NAME])
//	reply: TEXT
func fakeLLMCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! fakellm")
	}
	if len(args) < 1 {
		ts.Fatalf("usage: fakellm start|set|config|log|count ...")
	}
	fakeLLMs.Lock()
	mine := fakeLLMs.m[ts]
	if mine == nil {
		mine = map[string]*fakeLLM{}
		fakeLLMs.m[ts] = mine
	}
	fakeLLMs.Unlock()
	get := func(name string) *fakeLLM {
		fakeLLMs.Lock()
		defer fakeLLMs.Unlock()
		f := mine[name]
		if f == nil {
			ts.Fatalf("fakellm: no fake named %s (fakellm start %s ...)", name, name)
		}
		return f
	}
	switch args[0] {
	case "start":
		if len(args) < 3 {
			ts.Fatalf("usage: fakellm start NAME openai|anthropic [OPTION...]")
		}
		name, api := args[1], args[2]
		if api != enginetest.OpenAI && api != enginetest.Anthropic {
			ts.Fatalf("fakellm: api %q (want openai or anthropic)", api)
		}
		opts := fakeOptions(ts, args[3:])
		f := enginetest.NewFake(api, opts)
		srv := httptest.NewServer(f) // 127.0.0.1 only
		u := srv.URL
		if api == enginetest.OpenAI {
			u += "/v1"
		}
		fakeLLMs.Lock()
		if mine[name] != nil {
			fakeLLMs.Unlock()
			f.Close()
			srv.Close()
			ts.Fatalf("fakellm: %s already started", name)
		}
		mine[name] = &fakeLLM{fake: f, srv: srv, url: u}
		fakeLLMs.Unlock()
		ts.Defer(func() {
			f.Close() // releases hanging and delayed handlers
			srv.Close()
			fakeLLMs.Lock()
			delete(fakeLLMs.m, ts)
			fakeLLMs.Unlock()
		})
		ts.Setenv(name, u)
	case "set":
		if len(args) < 2 {
			ts.Fatalf("usage: fakellm set NAME [OPTION...]")
		}
		get(args[1]).fake.SetOptions(fakeOptions(ts, args[2:]))
	case "config":
		if len(args) != 3 {
			ts.Fatalf("usage: fakellm config SRC DST")
		}
		data, err := os.ReadFile(ts.MkAbs(args[1]))
		ts.Check(err)
		s := string(data)
		fakeLLMs.Lock()
		for name, f := range mine {
			s = strings.ReplaceAll(s, "@"+name+"@", f.url)
		}
		fakeLLMs.Unlock()
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(s), 0o644))
	case "log":
		if len(args) != 3 {
			ts.Fatalf("usage: fakellm log NAME FILE")
		}
		var b strings.Builder
		for i, r := range get(args[1]).fake.Requests() {
			writeFakeRequest(&b, i+1, r)
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(b.String()), 0o644))
	case "count":
		if len(args) != 3 {
			ts.Fatalf("usage: fakellm count NAME N")
		}
		want, err := strconv.Atoi(args[2])
		ts.Check(err)
		if got := len(get(args[1]).fake.Requests()); got != want {
			ts.Fatalf("fakellm %s received %d requests, want %d", args[1], got, want)
		}
	default:
		ts.Fatalf("fakellm: unknown subcommand %q", args[0])
	}
}

func fakeOptions(ts *testscript.TestScript, args []string) enginetest.Options {
	var o enginetest.Options
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "reply":
			o.Reply = v
		case "echo":
			o.Echo = true
		case "status":
			n, err := strconv.Atoi(v)
			ts.Check(err)
			o.Status = n
		case "error":
			o.ErrorMessage = v
		case "fault":
			o.Fault = enginetest.Fault(v)
		case "delay":
			d, err := time.ParseDuration(v)
			ts.Check(err)
			o.Delay = d
		case "usage":
			var n [4]int
			parts := strings.Split(v, ",")
			if len(parts) < 2 || len(parts) > 4 {
				ts.Fatalf("fakellm: usage=PROMPT,COMPLETION[,CACHEREAD[,CACHEWRITE]]")
			}
			for i, p := range parts {
				x, err := strconv.Atoi(p)
				ts.Check(err)
				n[i] = x
			}
			o.Usage = &enginetest.Usage{Prompt: n[0], Completion: n[1], CacheRead: n[2], CacheWrite: n[3]}
		case "key":
			o.RequireKey = v
		case "rule":
			c, r, ok := strings.Cut(v, "=>")
			if !ok {
				ts.Fatalf("fakellm: rule=CONTAINS=>REPLY")
			}
			o.Rules = append(o.Rules, enginetest.Rule{Contains: c, Reply: r})
		default:
			ts.Fatalf("fakellm: unknown option %q", a)
		}
	}
	return o
}

func writeFakeRequest(b *strings.Builder, n int, r enginetest.Recorded) {
	flat := func(s string) string { return strings.ReplaceAll(s, "\n", `\n`) }
	model, _ := r.Request["model"].(string)
	fmt.Fprintf(b, "#%d %s %d model=%s\n", n, r.Path, r.Status, model)
	var hs []string
	for k := range r.Header {
		lk := strings.ToLower(k)
		if lk == "authorization" || lk == "x-api-key" || strings.HasPrefix(lk, "anthropic-") || strings.HasPrefix(lk, "x-") {
			hs = append(hs, k)
		}
	}
	sort.Strings(hs)
	for _, k := range hs {
		fmt.Fprintf(b, "header %s: %s\n", strings.ToLower(k), r.Header.Get(k))
	}
	var ps []string
	for k, v := range r.Request {
		switch v.(type) {
		case string, float64, bool:
			if k != "model" && k != "system" {
				ps = append(ps, fmt.Sprintf("%s=%v", k, v))
			}
		}
	}
	sort.Strings(ps)
	if len(ps) > 0 {
		fmt.Fprintf(b, "params: %s\n", strings.Join(ps, " "))
	}
	if r.System != "" {
		fmt.Fprintf(b, "system: %s\n", flat(r.System))
	}
	msgs, _ := r.Request["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		if role == "system" || role == "developer" {
			continue // shown above
		}
		fmt.Fprintf(b, "%s: %s\n", role, flat(fakeContentText(mm)))
	}
	if r.Reply != "" {
		fmt.Fprintf(b, "reply: %s\n", flat(r.Reply))
	}
}

// fakeContentText renders a message's content (OpenAI or Anthropic) as one
// string: text parts joined by newlines, other parts as [type NAME].
func fakeContentText(m map[string]any) string {
	var parts []string
	switch c := m["content"].(type) {
	case string:
		parts = append(parts, c)
	case []any:
		for _, p := range c {
			pm, _ := p.(map[string]any)
			switch t, _ := pm["type"].(string); t {
			case "text":
				s, _ := pm["text"].(string)
				parts = append(parts, s)
			case "tool_use":
				name, _ := pm["name"].(string)
				parts = append(parts, "[toolCall "+name+"]")
			case "tool_result":
				parts = append(parts, "[toolResult "+fakeToolResultText(pm["content"])+"]")
			default:
				parts = append(parts, "["+t+"]")
			}
		}
	}
	if calls, ok := m["tool_calls"].([]any); ok {
		for _, tc := range calls {
			tm, _ := tc.(map[string]any)
			fn, _ := tm["function"].(map[string]any)
			name, _ := fn["name"].(string)
			parts = append(parts, "[toolCall "+name+"]")
		}
	}
	return strings.Join(parts, "\n")
}

func fakeToolResultText(c any) string {
	switch x := c.(type) {
	case string:
		return x
	case nil:
		return ""
	case []any:
		return fakeContentText(map[string]any{"content": x})
	}
	b, _ := json.Marshal(c)
	return string(b)
}
