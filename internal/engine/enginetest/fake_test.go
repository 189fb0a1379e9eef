package enginetest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, url string, body any, hdr map[string]string) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not JSON: %s", data)
	}
	return resp.StatusCode, v
}

func oaReply(v map[string]any) string {
	return v["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
}

func chat(system, user string) map[string]any {
	return map[string]any{"model": "m", "messages": []any{
		map[string]any{"role": "system", "content": system},
		map[string]any{"role": "user", "content": "earlier"},
		map[string]any{"role": "assistant", "content": "ok"},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": user}}},
	}}
}

func TestOpenAIFakeScripting(t *testing.T) {
	s := NewOpenAI(t, Options{Rules: []Rule{ReplySkip, AnnounceSkip}})
	url := s.URL + "/chat/completions"
	cases := []struct{ system, user, want string }{
		{"", "hello   world", "MOCK reply #2: hello world"},
		{"Agent-to-agent reply step:\nTurn 1 of 5.", "x", "REPLY_SKIP"},
		{"Sub-agent announce step:\n…", "Sub-agent announce step.", "ANNOUNCE_SKIP"},
		{"", "please [[reply:exactly this]] now", "exactly this"},
		{"[[reply:from system]]", "x", "from system"},
		{"", "say it back [[echo]]", "say it back [[echo]]"},
	}
	for _, c := range cases {
		st, v := post(t, url, chat(c.system, c.user), nil)
		if st != 200 || oaReply(v) != c.want {
			t.Errorf("%q/%q: %d %v", c.system, c.user, st, v)
		}
	}
	if last := s.Last(); last.Users != 2 || last.LastUser != "say it back [[echo]]" || last.Reply != "say it back [[echo]]" {
		t.Errorf("recorded %+v", last)
	}
	st, v := post(t, url, chat("", "[[status:503]]"), nil)
	if st != 503 || v["error"].(map[string]any)["message"] != "fake provider error" {
		t.Errorf("status marker: %d %v", st, v)
	}
	s.SetOptions(Options{Reply: "fixed", Usage: &Usage{Prompt: 10, Completion: 2, CacheRead: 4}})
	_, v = post(t, url, chat("", "x"), nil)
	u := v["usage"].(map[string]any)
	if oaReply(v) != "fixed" || u["prompt_tokens"] != 10.0 || u["prompt_tokens_details"].(map[string]any)["cached_tokens"] != 4.0 {
		t.Errorf("fixed: %v", v)
	}
	s.SetOptions(Options{Delay: 200 * time.Millisecond, Echo: true})
	t0 := time.Now()
	_, v = post(t, url, chat("", "slow"), nil)
	if time.Since(t0) < 200*time.Millisecond || oaReply(v) != "slow" {
		t.Errorf("delay/echo: %v", v)
	}
	if n := len(s.Requests()); n != 9 {
		t.Errorf("%d requests recorded", n)
	}
}

func TestAnthropicFake(t *testing.T) {
	s := NewAnthropic(t, Options{RequireKey: "k", Usage: &Usage{Prompt: 5, Completion: 1, CacheRead: 7, CacheWrite: 9}})
	body := map[string]any{"model": "c", "max_tokens": 10, "system": "[[reply:hey]]", "messages": []any{
		map[string]any{"role": "user", "content": "hi"},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t", "name": "x", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t"}}},
	}}
	st, v := post(t, s.URL+"/v1/messages", body, map[string]string{"x-api-key": "k"})
	if st != 200 || v["content"].([]any)[0].(map[string]any)["text"] != "hey" || v["usage"].(map[string]any)["cache_creation_input_tokens"] != 9.0 {
		t.Errorf("%d %v", st, v)
	}
	if last := s.Last(); last.Users != 1 || last.LastUser != "hi" {
		t.Errorf("tool results counted as user turns: %+v", last)
	}
	st, v = post(t, s.URL+"/v1/messages", body, nil)
	if st != 401 || v["type"] != "error" || v["error"].(map[string]any)["type"] != "authentication_error" {
		t.Errorf("no key: %d %v", st, v)
	}
	s.SetOptions(Options{Fault: FaultEmpty})
	_, v = post(t, s.URL+"/v1/messages", body, nil)
	if _, ok := v["content"]; ok {
		t.Errorf("empty fault has content: %v", v)
	}
	st, _ = post(t, s.URL+"/v1/chat/completions", body, nil)
	if st != 404 {
		t.Errorf("wrong path: %d", st)
	}
}

func TestProviderJSON(t *testing.T) {
	s := NewOpenAI(t, Options{})
	var v map[string]any
	if err := json.Unmarshal([]byte(s.ProviderJSON("key", "m1", "m2")), &v); err != nil {
		t.Fatal(err)
	}
	if v["baseUrl"] != s.URL || v["api"] != "openai-completions" || len(v["models"].([]any)) != 2 || !strings.HasSuffix(s.URL, "/v1") {
		t.Errorf("%v", v)
	}
}
