package engine

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/engine/enginetest"
	"github.com/openclaw/sessions/internal/persona"
)

var fixedNow = time.UnixMilli(1795236228807)

func newProvider(t *testing.T, srv *enginetest.Server, apiKey string) *Provider {
	t.Helper()
	cfg := providerConfig(t, "fake", srv.APIName(), srv.URL, apiKey, "")
	return &Provider{Config: cfg, Now: func() time.Time { return fixedNow }, PersonaEnv: noHome}
}

func baseRequest() Request {
	return Request{
		AgentID: "main", SessionKey: "agent:main:main", SessionID: "sid",
		Message: "hello there", ExtraSystemPrompt: "Agent-to-agent message context:\nAgent 2 (target) session: agent:main:main.",
		Provider: "fake", Model: "m1", Timeout: 5 * time.Second,
	}
}

func TestOpenAITurnRequestShapeAndUsage(t *testing.T) {
	srv := enginetest.NewOpenAI(t, enginetest.Options{
		Reply: "the answer", RequireKey: "sk-test",
		Usage: &enginetest.Usage{Prompt: 1000, Completion: 200, CacheRead: 400},
	})
	e := newProvider(t, srv, "sk-test")
	req := baseRequest()
	req.History = richHistory
	res, err := e.Turn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	rec := srv.Last()
	if rec.Path != "/v1/chat/completions" {
		t.Errorf("path %q", rec.Path)
	}
	if got := rec.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization %q", got)
	}
	if got := rec.Header.Get("X-Extra"); got != "extra-value" {
		t.Errorf("configured header %q", got)
	}
	body := rec.Request
	if body["model"] != "m1" || body["stream"] != false {
		t.Errorf("model/stream: %v %v", body["model"], body["stream"])
	}
	if body["tool_choice"] != "none" {
		t.Errorf("tool_choice %v", body["tool_choice"])
	}
	var toolNames []string
	for _, tl := range body["tools"].([]any) {
		toolNames = append(toolNames, tl.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	if !reflect.DeepEqual(toolNames, []string{"exec", "read"}) {
		t.Errorf("tools %v", toolNames)
	}
	if _, ok := body["reasoning_effort"]; ok {
		t.Errorf("reasoning_effort sent for a non-reasoning model")
	}
	msgs := body["messages"].([]any)
	type m = map[string]any
	want := []m{
		{"role": "system"},
		{"role": "assistant", "content": "[webchat] injected first"},
		{"role": "user", "content": "check disk\n[image image/png, 5 bytes, not sent: the model does not take images]"},
		{"role": "assistant", "content": "running it", "tool_calls": []any{
			m{"id": "call", "type": "function", "function": m{"name": "exec", "arguments": `{"cmd":"df -h"}`}},
			m{"id": "call_2", "type": "function", "function": m{"name": "read", "arguments": `{"path":"/etc/fstab"}`}},
		}},
		{"role": "tool", "tool_call_id": "call", "content": "/dev/sda1 50%"},
		{"role": "tool", "tool_call_id": "call_2", "content": "ENOENT"},
		{"role": "user", "content": "[tool result of stray]\norphan output"},
		{"role": "assistant", "content": "disk is half full"},
		{"role": "user", "content": "a custom note"},
		{"role": "user", "content": "Ran `ls`\n```\na b\n```\n\nCommand exited with code 2"},
		{"role": "user", "content": compactionSummaryPrefix + "we talked" + compactionSummarySuffix},
		{"role": "assistant", "content": `[tool call web_search {"q":"x"} — no result recorded]`},
		{"role": "user", "content": "plain string content"},
		{"role": "user", "content": "hello there"},
	}
	if len(msgs) != len(want) {
		b, _ := json.MarshalIndent(msgs, "", " ")
		t.Fatalf("%d messages, want %d:\n%s", len(msgs), len(want), b)
	}
	for i, w := range want {
		got := msgs[i].(map[string]any)
		for k, v := range w {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("message %d %s = %#v, want %#v", i, k, got[k], v)
			}
		}
	}
	sys := msgs[0].(map[string]any)["content"].(string)
	mustContain(t, sys, "You are the OpenClaw agent main (Main Agent).", "Session: agent:main:main.", "\n## Group Chat Context\nAgent-to-agent message context:\nAgent 2 (target) session: agent:main:main.", persona.NoToolsNotice)

	// result
	if res.Reply != "the answer" || res.Provider != "fake" || res.Model != "m1" || res.API != "openai-completions" || res.StopReason != "stop" {
		t.Errorf("result %+v", res)
	}
	wantUsage := Usage{Input: 600, Output: 200, CacheRead: 400, TotalTokens: 1200}
	wantUsage.Cost = CostBreakdown{Input: 600 * 3 / 1e6, Output: 200 * 15 / 1e6, CacheRead: 400 * 0.3 / 1e6}
	wantUsage.Cost.Total = wantUsage.Cost.Input + wantUsage.Cost.Output + wantUsage.Cost.CacheRead
	if !usageEqual(res.Usage, wantUsage) {
		t.Errorf("usage %+v, want %+v", res.Usage, wantUsage)
	}
	if res.PromptTokens != 1000 {
		t.Errorf("PromptTokens %d, want 1000 (input+cacheRead)", res.PromptTokens)
	}
	a := decode(t, res.Assistant)
	wantKeys := []string{"role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp"}
	if keys := keyOrder(t, res.Assistant); !reflect.DeepEqual(keys, wantKeys) {
		t.Errorf("assistant keys %v, want %v", keys, wantKeys)
	}
	if a["role"] != "assistant" || a["api"] != "openai-completions" || a["provider"] != "fake" || a["model"] != "m1" || a["stopReason"] != "stop" || a["timestamp"] != float64(fixedNow.UnixMilli()) {
		t.Errorf("assistant %s", res.Assistant)
	}
	if c := a["content"].([]any); len(c) != 1 || c[0].(map[string]any)["text"] != "the answer" {
		t.Errorf("content %v", a["content"])
	}
	u := a["usage"].(map[string]any)
	if u["input"] != 600.0 || u["output"] != 200.0 || u["cacheRead"] != 400.0 || u["cacheWrite"] != 0.0 || u["totalTokens"] != 1200.0 {
		t.Errorf("usage JSON %v", u)
	}
	if c := u["cost"].(map[string]any); math.Abs(c["total"].(float64)-wantUsage.Cost.Total) > 1e-12 {
		t.Errorf("cost JSON %v", c)
	}
}

func usageEqual(a, b Usage) bool {
	ca, cb := a.Cost, b.Cost
	a.Cost, b.Cost = CostBreakdown{}, CostBreakdown{}
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	return a == b && near(ca.Input, cb.Input) && near(ca.Output, cb.Output) && near(ca.CacheRead, cb.CacheRead) && near(ca.CacheWrite, cb.CacheWrite) && near(ca.Total, cb.Total)
}

func keyOrder(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestOpenAIImagesAndReasoning(t *testing.T) {
	srv := enginetest.NewOpenAI(t, enginetest.Options{})
	e := newProvider(t, srv, "k")
	req := baseRequest()
	req.Model = "m2" // takes images
	req.History = []json.RawMessage{
		raw(`{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}]}`),
		raw(`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"shot","arguments":{}}],"stopReason":"toolUse"}`),
		raw(`{"role":"toolResult","toolCallId":"c1","toolName":"shot","content":[{"type":"image","data":"aGk=","mimeType":"image/jpeg"}],"isError":false}`),
	}
	res, err := e.Turn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// the default fake reply counts user messages like the peer's mock:
	// "look", the tool-result image message and the new one
	if res.Reply != "MOCK reply #3: hello there" {
		t.Errorf("reply %q", res.Reply)
	}
	msgs := srv.Last().Request["messages"].([]any)
	user := msgs[1].(map[string]any)["content"].([]any)
	if img := user[1].(map[string]any); img["type"] != "image_url" || img["image_url"].(map[string]any)["url"] != "data:image/png;base64,aGVsbG8=" {
		t.Errorf("user image part %v", img)
	}
	if tm := msgs[3].(map[string]any); tm["role"] != "tool" || tm["content"] != "(see attached image)" {
		t.Errorf("tool message %v", tm)
	}
	if att := msgs[4].(map[string]any); att["role"] != "user" || len(att["content"].([]any)) != 2 {
		t.Errorf("attached images message %v", att)
	}

	req.Model, req.Thinking, req.History = "r1", "xhigh", nil
	if _, err := e.Turn(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := srv.Last().Request["reasoning_effort"]; got != "high" {
		t.Errorf("reasoning_effort %v", got)
	}
	if _, ok := srv.Last().Request["tools"]; ok {
		t.Errorf("tools sent without tool history")
	}
}

func TestOpenAIResponseVariants(t *testing.T) {
	cases := []struct {
		name, body              string
		reply, stop, thinking   string
		ignored                 []string
		input, cacheRead, total int
	}{
		{"null content with tool calls", `{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"x","type":"function","function":{"name":"exec","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":3}}`,
			"", "stop", "", []string{"exec"}, 10, 0, 13},
		{"array content, length", `{"choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":"length"}]}`,
			"ab", "length", "", nil, 0, 0, 0},
		{"reasoning_content", `{"choices":[{"message":{"role":"assistant","content":"x","reasoning_content":"hmm"},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":1,"prompt_cache_hit_tokens":5}}`,
			"x", "stop", "hmm", nil, 2, 5, 8},
		{"empty string content", `{"choices":[{"message":{"role":"assistant","content":""},"finish_reason":"stop"}]}`,
			"", "stop", "", nil, 0, 0, 0},
		{"content_filter", `{"choices":[{"message":{"role":"assistant","content":"no"},"finish_reason":"content_filter"}]}`,
			"no", "error", "", nil, 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg := &target{Name: "p", API: APIOpenAICompletions}
			r, err := parseOpenAI(tg, []byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			if r.Text != c.reply || r.StopReason != c.stop || r.Thinking != c.thinking || !reflect.DeepEqual(r.ToolCalls, c.ignored) {
				t.Errorf("got %+v", r)
			}
			if r.Usage.Input != c.input || r.Usage.CacheRead != c.cacheRead || r.Usage.TotalTokens != c.total {
				t.Errorf("usage %+v", r.Usage)
			}
		})
	}
}

func TestAnthropicTurnRequestShapeAndUsage(t *testing.T) {
	for _, suffix := range []string{"", "/v1", "/v1/"} {
		t.Run("baseUrl"+suffix, func(t *testing.T) {
			srv := enginetest.NewAnthropic(t, enginetest.Options{
				Reply: "claude says hi", RequireKey: "ak-test",
				Usage: &enginetest.Usage{Prompt: 100, Completion: 20, CacheRead: 1000, CacheWrite: 50},
			})
			cfg := providerConfig(t, "anth", "anthropic-messages", srv.URL+suffix, "ak-test", "")
			e := &Provider{Config: cfg, Now: func() time.Time { return fixedNow }, PersonaEnv: noHome}
			req := baseRequest()
			req.Provider = "anth"
			req.History = richHistory
			res, err := e.Turn(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			rec := srv.Last()
			if rec.Path != "/v1/messages" {
				t.Errorf("path %q", rec.Path)
			}
			if rec.Header.Get("x-api-key") != "ak-test" || rec.Header.Get("anthropic-version") != "2023-06-01" || rec.Header.Get("Authorization") != "" {
				t.Errorf("headers %v", rec.Header)
			}
			body := rec.Request
			if body["max_tokens"] != 2048.0 {
				t.Errorf("max_tokens %v (model maxTokens 2048)", body["max_tokens"])
			}
			mustContain(t, body["system"].(string), "agent main (Main Agent)", "Agent-to-agent message context:", persona.NoToolsNotice)
			if tc := body["tool_choice"].(map[string]any); tc["type"] != "none" {
				t.Errorf("tool_choice %v", tc)
			}
			msgs := body["messages"].([]any)
			roles := ""
			for _, m := range msgs {
				roles += m.(map[string]any)["role"].(string)[:1]
			}
			// placeholder user, assistant(injected), user, assistant(tools),
			// user(results), assistant, user(custom+bash+summary),
			// assistant(unpaired), user(plain+new)
			if roles != "uauauauau" {
				t.Fatalf("roles %s", roles)
			}
			for _, m := range msgs {
				if m.(map[string]any)["role"] == "system" {
					t.Error("system prompt inside messages")
				}
			}
			first := msgs[0].(map[string]any)["content"].([]any)[0].(map[string]any)
			if first["text"] != anthropicFirstUser {
				t.Errorf("first %v", first)
			}
			asst := msgs[3].(map[string]any)["content"].([]any)
			if len(asst) != 3 || asst[1].(map[string]any)["type"] != "tool_use" || asst[1].(map[string]any)["id"] != "call" ||
				!reflect.DeepEqual(asst[1].(map[string]any)["input"], map[string]any{"cmd": "df -h"}) {
				t.Errorf("assistant with tool_use %v", asst)
			}
			results := msgs[4].(map[string]any)["content"].([]any)
			if len(results) != 3 {
				t.Fatalf("results %v", results)
			}
			r0, r1, r2 := results[0].(map[string]any), results[1].(map[string]any), results[2].(map[string]any)
			if r0["type"] != "tool_result" || r0["tool_use_id"] != "call" || r0["is_error"] != nil {
				t.Errorf("result 0 %v", r0)
			}
			if r1["tool_use_id"] != "call_2" || r1["is_error"] != true {
				t.Errorf("result 1 %v", r1)
			}
			if r2["type"] != "text" || !strings.HasPrefix(r2["text"].(string), "[tool result of stray]") {
				t.Errorf("orphan result %v", r2)
			}
			last := msgs[8].(map[string]any)["content"].([]any)
			if len(last) != 2 || last[1].(map[string]any)["text"] != "hello there" {
				t.Errorf("last user %v", last)
			}
			wantUsage := Usage{Input: 100, Output: 20, CacheRead: 1000, CacheWrite: 50, TotalTokens: 1170}
			wantUsage.Cost = CostBreakdown{Input: 100 * 3 / 1e6, Output: 20 * 15 / 1e6, CacheRead: 1000 * 0.3 / 1e6, CacheWrite: 50 * 3.75 / 1e6}
			wantUsage.Cost.Total = wantUsage.Cost.Input + wantUsage.Cost.Output + wantUsage.Cost.CacheRead + wantUsage.Cost.CacheWrite
			if !usageEqual(res.Usage, wantUsage) {
				t.Errorf("usage %+v want %+v", res.Usage, wantUsage)
			}
			if res.PromptTokens != 1150 {
				t.Errorf("PromptTokens %d, want 1150", res.PromptTokens)
			}
			if res.Reply != "claude says hi" || res.API != "anthropic-messages" {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func TestAnthropicDefaultsAndThinking(t *testing.T) {
	srv := enginetest.NewAnthropic(t, enginetest.Options{Echo: true})
	cfg := providerConfig(t, "anth", "anthropic-messages", srv.URL, "k", "")
	e := &Provider{Config: cfg}
	req := baseRequest()
	req.Provider, req.Model, req.ExtraSystemPrompt = "anth", "m2", ""
	req.Message = "   "
	if _, err := e.Turn(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := srv.Last().Request
	if body["max_tokens"] != float64(DefaultMaxTokens) {
		t.Errorf("max_tokens %v", body["max_tokens"])
	}
	msgs := body["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"] != anthropicEmptyUser {
		t.Errorf("blank message %v", msgs)
	}
	if _, ok := body["tools"]; ok {
		t.Error("tools without tool history")
	}

	req.Model, req.Thinking, req.Message = "r1", "medium", "think"
	res, err := e.Turn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if th := srv.Last().Request["thinking"].(map[string]any); th["type"] != "enabled" || th["budget_tokens"] != 8192.0 {
		t.Errorf("thinking %v", th)
	}
	if res.Reply != "think" {
		t.Errorf("echo reply %q", res.Reply)
	}
}

func TestAnthropicResponseThinking(t *testing.T) {
	tg := &target{Name: "a", API: APIAnthropicMessages}
	r, err := parseAnthropic(tg, []byte(`{"type":"message","content":[{"type":"thinking","thinking":"hm","signature":"SIG"},{"type":"text","text":"A"},{"type":"tool_use","id":"t","name":"exec","input":{}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":4}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "A" || r.Thinking != "hm" || r.ThinkingSig != "SIG" || r.StopReason != "stop" || !reflect.DeepEqual(r.ToolCalls, []string{"exec"}) {
		t.Errorf("%+v", r)
	}
	msg := AssistantMessage(r.Text, r.Thinking, r.ThinkingSig, "anthropic-messages", "a", "m", r.Usage, r.StopReason, "", fixedNow)
	c := decode(t, msg)["content"].([]any)
	if len(c) != 2 || c[0].(map[string]any)["type"] != "thinking" || c[0].(map[string]any)["thinkingSignature"] != "SIG" {
		t.Errorf("content %v", c)
	}
	r, err = parseAnthropic(tg, []byte(`{"type":"message","content":[],"stop_reason":"max_tokens"}`))
	if err != nil || r.Text != "" || r.StopReason != "length" {
		t.Errorf("empty content array: %+v %v", r, err)
	}
}

// every fault, for both APIs
func TestProviderFaults(t *testing.T) {
	for _, api := range []string{enginetest.OpenAI, enginetest.Anthropic} {
		start := enginetest.NewOpenAI
		if api == enginetest.Anthropic {
			start = enginetest.NewAnthropic
		}
		cases := []struct {
			name    string
			opts    enginetest.Options
			timeout time.Duration
			is      error
			code    int
			msg     []string
		}{
			{"500 with error JSON", enginetest.Options{Status: 500, ErrorMessage: "upstream exploded"}, 5 * time.Second, nil, 1,
				[]string{"provider fake: HTTP 500 (api_error): upstream exploded"}},
			{"429", enginetest.Options{Status: 429, ErrorMessage: "slow down"}, 5 * time.Second, nil, 1, []string{"HTTP 429", "slow down"}},
			{"hang beyond timeout", enginetest.Options{Fault: enginetest.FaultHang}, 300 * time.Millisecond, ErrTimeout, 5,
				[]string{"no complete response within", "timed out"}},
			{"delay beyond timeout", enginetest.Options{Delay: 10 * time.Second}, 300 * time.Millisecond, ErrTimeout, 5, []string{"timed out"}},
			{"close mid-body", enginetest.Options{Fault: enginetest.FaultCloseMidBody}, 5 * time.Second, ErrResponse, 1,
				[]string{"connection closed while reading the response (HTTP 200"}},
			{"non-JSON 200", enginetest.Options{Fault: enginetest.FaultNonJSON}, 5 * time.Second, ErrResponse, 1,
				[]string{"response is not JSON: <html>"}},
			{"non-JSON 502", enginetest.Options{Fault: enginetest.FaultNonJSON, Status: 502}, 5 * time.Second, nil, 1,
				[]string{"HTTP 502: (text/html) <html>"}},
			{"empty choices/content", enginetest.Options{Fault: enginetest.FaultEmpty}, 5 * time.Second, ErrResponse, 1,
				[]string{map[string]string{enginetest.OpenAI: "response has no choices", enginetest.Anthropic: "response has no content"}[api]}},
			{"wrong key", enginetest.Options{RequireKey: "other"}, 5 * time.Second, nil, 1, []string{"HTTP 401", "invalid api key"}},
		}
		for _, c := range cases {
			t.Run(api+"/"+c.name, func(t *testing.T) {
				srv := start(t, c.opts)
				e := newProvider(t, srv, "k")
				req := baseRequest()
				req.Timeout = c.timeout
				t0 := time.Now()
				res, err := e.Turn(context.Background(), req)
				el := time.Since(t0)
				if err == nil {
					t.Fatalf("no error; reply %q", res.Reply)
				}
				if c.is != nil && !errors.Is(err, c.is) {
					t.Errorf("error %v is not %v", err, c.is)
				}
				if got := apperr.CodeOf(err); got != c.code {
					t.Errorf("exit code %d, want %d", got, c.code)
				}
				mustContain(t, err.Error(), c.msg...)
				if el > c.timeout+time.Second {
					t.Errorf("took %s with timeout %s", el, c.timeout)
				}
				var pe *ProviderError
				if c.opts.Status >= 400 && !errors.As(err, &pe) {
					t.Errorf("not a *ProviderError: %T", err)
				}
			})
		}
	}
}

func TestProviderContextCancel(t *testing.T) {
	srv := enginetest.NewOpenAI(t, enginetest.Options{Fault: enginetest.FaultHang})
	e := newProvider(t, srv, "k")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := e.Turn(ctx, baseRequest())
	if !errors.Is(err, ErrCanceled) {
		t.Fatalf("err %v", err)
	}
	// a parent deadline is a timeout
	ctx, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel2()
	req := baseRequest()
	req.Timeout = 0
	if _, err := e.Turn(ctx, req); !errors.Is(err, ErrTimeout) {
		t.Fatalf("err %v", err)
	}
}

func TestProviderConfigErrors(t *testing.T) {
	doc := `{"models":{"providers":{
	  "sec": {"baseUrl":"http://127.0.0.1:1/v1","apiKey":"${MY_MISSING_KEY}","api":"openai-completions","models":[{"id":"m1"}]},
	  "hdr": {"baseUrl":"http://127.0.0.1:1/v1","apiKey":"k","headers":{"X-Org":"${ORG_ID}"},"models":[{"id":"m1"}]},
	  "resp": {"baseUrl":"http://127.0.0.1:1/v1","apiKey":"k","api":"openai-responses","models":[{"id":"m1"}]},
	  "nourl": {"apiKey":"k","api":"openai-completions"},
	  "open": {"baseUrl":"http://127.0.0.1:1/v1","apiKey":"k"}
	}}}`
	cfg := loadConfig(t, doc, nil)
	e := &Provider{Config: cfg}
	cases := []struct{ provider, model, want string }{
		{"sec", "m1", "models.providers.sec.apiKey uses ${MY_MISSING_KEY}, which is not set"},
		{"hdr", "m1", "models.providers.hdr.headers.X-Org uses ${ORG_ID}"},
		{"resp", "m1", `api "openai-responses" is not supported`},
		{"nourl", "m1", `provider "nourl" has no baseUrl`},
		{"nope", "m1", `unknown model provider "nope"`},
		{"sec", "m9", `unknown model "m9" for provider "sec" (models.providers.sec.models has: m1)`},
		{"", "", "no model for this turn"},
	}
	for _, c := range cases {
		req := baseRequest()
		req.Provider, req.Model = c.provider, c.model
		_, err := e.Turn(context.Background(), req)
		if err == nil || !errors.Is(err, ErrConfig) {
			t.Errorf("%s/%s: err %v, want ErrConfig", c.provider, c.model, err)
			continue
		}
		mustContain(t, err.Error(), c.want)
	}
	// a provider without a models list takes any model id (and then fails
	// to connect, not to resolve)
	req := baseRequest()
	req.Provider, req.Model, req.Timeout = "OPEN", "anything", 3*time.Second
	_, err := e.Turn(context.Background(), req)
	if err == nil || errors.Is(err, ErrConfig) {
		t.Errorf("open provider: %v", err)
	}
}

func TestProviderConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := providerConfig(t, "fake", "openai-completions", "http://"+addr+"/v1", "k", "")
	e := &Provider{Config: cfg}
	t0 := time.Now()
	_, err = e.Turn(context.Background(), baseRequest())
	if err == nil || !errors.Is(err, ErrResponse) {
		t.Fatalf("err %v", err)
	}
	mustContain(t, err.Error(), "cannot reach http://"+addr+"/v1/chat/completions", "connection refused")
	if el := time.Since(t0); el < connRefusedRetryDelay {
		t.Errorf("no retry: %s", el)
	}

	// the single retry reaches a server that came up meanwhile
	fake := enginetest.NewFake(enginetest.OpenAI, enginetest.Options{Reply: "late but fine"})
	defer fake.Close()
	srvc := make(chan *http.Server, 1)
	time.AfterFunc(150*time.Millisecond, func() {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			srvc <- nil
			return
		}
		s := &http.Server{Handler: fake}
		go s.Serve(l)
		srvc <- s
	})
	res, err := e.Turn(context.Background(), baseRequest())
	if s := <-srvc; s != nil {
		defer s.Close()
	} else {
		t.Skip("port was taken meanwhile")
	}
	if err != nil || res.Reply != "late but fine" {
		t.Fatalf("retry: %v %+v", err, res)
	}
}

func TestEstimateCostAndPromptTokens(t *testing.T) {
	cfg := providerConfig(t, "fake", "openai-completions", "http://x/v1", "k", "")
	c := EstimateCost(cfg, "FAKE", "m1", Usage{Input: 1_000_000, Output: 2_000_000})
	if c.Input != 3 || c.Output != 30 || c.Total != 33 {
		t.Errorf("cost %+v", c)
	}
	if c := EstimateCost(cfg, "fake", "m2", Usage{Input: 5}); c != (CostBreakdown{}) {
		t.Errorf("unconfigured cost %+v", c)
	}
	if c := EstimateCost(nil, "fake", "m1", Usage{Input: 5}); c != (CostBreakdown{}) {
		t.Errorf("nil config %+v", c)
	}
	for _, c := range []struct {
		u    Usage
		want int
	}{
		{Usage{Input: 10, Output: 99, CacheRead: 5, CacheWrite: 1, TotalTokens: 115}, 16},
		{Usage{Output: 7, TotalTokens: 40}, 40},
		{Usage{Output: 7}, 0},
	} {
		if got := c.u.PromptTokens(); got != c.want {
			t.Errorf("%+v: %d want %d", c.u, got, c.want)
		}
	}
}

func TestUserMessageAndNew(t *testing.T) {
	m := UserMessage("a <b> & c", fixedNow)
	if string(m) != `{"role":"user","content":[{"type":"text","text":"a <b> & c"}],"timestamp":1795236228807}` {
		t.Errorf("%s", m)
	}
	cfg := providerConfig(t, "fake", "openai-completions", "http://x/v1", "k", "")
	for spec, want := range map[string]string{"": "*engine.Provider", "provider": "*engine.Provider", " exec: echo hi ": "*engine.Exec"} {
		e, err := New(spec, cfg)
		if err != nil || reflectType(e) != want {
			t.Errorf("New(%q) = %T, %v", spec, e, err)
		}
	}
	if e, _ := New("exec: echo hi", cfg); e.(*Exec).Command != "echo hi" {
		t.Errorf("command %q", e.(*Exec).Command)
	}
	for _, spec := range []string{"exec:", "exec:  ", "gateway", "Provider"} {
		if _, err := New(spec, cfg); err == nil || apperr.CodeOf(err) != apperr.CodeUsage {
			t.Errorf("New(%q): %v", spec, err)
		}
	}
}

func reflectType(v any) string { return reflect.TypeOf(v).String() }

// headers and part of the body, then nothing: the deadline still holds
func TestProviderStallMidBody(t *testing.T) {
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(200)
		w.Write([]byte(`{"choices":[`))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hs.Close()
	defer close(release)
	cfg := providerConfig(t, "fake", "openai-completions", hs.URL+"/v1", "k", "")
	req := baseRequest()
	req.Timeout = 300 * time.Millisecond
	t0 := time.Now()
	_, err := (&Provider{Config: cfg}).Turn(context.Background(), req)
	if !errors.Is(err, ErrTimeout) || time.Since(t0) > 2*time.Second {
		t.Fatalf("err %v after %s", err, time.Since(t0))
	}
}

func TestProviderErrorIn200(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	}))
	defer hs.Close()
	cfg := providerConfig(t, "fake", "anthropic-messages", hs.URL, "k", "")
	_, err := (&Provider{Config: cfg}).Turn(context.Background(), baseRequest())
	var pe *ProviderError
	if !errors.As(err, &pe) || pe.Type != "overloaded_error" || pe.Message != "Overloaded" {
		t.Fatalf("err %v", err)
	}
}
