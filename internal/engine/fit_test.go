package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/engine/enginetest"
)

// synthHistory is n turns of pi messages: a user question, an assistant
// tool call, its tool result (resultChars long), the assistant's answer.
func synthHistory(n, resultChars int) []json.RawMessage {
	out := make([]json.RawMessage, 0, 4*n)
	big := strings.Repeat("r", resultChars)
	for i := range n {
		out = append(out,
			raw(fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"question %d"}],"timestamp":1}`, i)),
			raw(fmt.Sprintf(`{"role":"assistant","content":[{"type":"toolCall","id":"call_%d","name":"read","arguments":{"path":"f%d"}}],"api":"openai-completions","provider":"p","model":"m","stopReason":"toolUse","timestamp":1}`, i, i)),
			raw(fmt.Sprintf(`{"role":"toolResult","toolCallId":"call_%d","toolName":"read","content":[{"type":"text","text":"%s"}],"isError":false,"timestamp":1}`, i, big)),
			raw(fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"answer %d"}],"api":"openai-completions","provider":"p","model":"m","stopReason":"stop","timestamp":1}`, i)),
		)
	}
	return out
}

func TestFitHistoryKeepsNewestWholeTurns(t *testing.T) {
	h := synthHistory(100, 400)
	perTurn := 0
	for _, m := range h[:4] {
		perTurn += EstimateTokens(m)
	}
	kept, dropped := FitHistory(h, perTurn*10+perTurn/2)
	if len(kept) != 40 || dropped != 360 {
		t.Fatalf("kept %d dropped %d (per turn %d tokens)", len(kept), dropped, perTurn)
	}
	if !strings.Contains(string(kept[0]), `"question 90"`) || !strings.Contains(string(kept[len(kept)-1]), `"answer 99"`) {
		t.Fatalf("kept %s … %s", kept[0], kept[len(kept)-1])
	}
	// everything fits: nothing dropped
	if k, d := FitHistory(h, 1<<30); len(k) != len(h) || d != 0 {
		t.Fatal(len(k), d)
	}
	// not even the newest turn fits: nothing kept
	if k, d := FitHistory(h, perTurn-1); len(k) != 0 || d != len(h) {
		t.Fatal(len(k), d)
	}
	// a turn's boundary is a user message: the tool call stays with its result
	for budget := 1; budget < perTurn*3; budget += 7 {
		k, _ := FitHistory(h, budget)
		if len(k) > 0 && !strings.HasPrefix(string(k[0]), `{"role":"user"`) {
			t.Fatalf("budget %d: kept history starts with %s", budget, k[0])
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	plain := `{"role":"user","content":"abcdefgh"}`
	if got := EstimateTokens(raw(plain)); got != (len(plain)+3)/4 {
		t.Errorf("%s: %d", plain, got)
	}
	data := strings.Repeat("A", 40000)
	img := `{"role":"user","content":[{"type":"text","text":"abcd"},{"type":"image","data":"` + data + `","mimeType":"image/png"}]}`
	if got, want := EstimateTokens(raw(img)), (len(img)-len(data)+3)/4+1200; got != want {
		t.Errorf("image: %d, want %d", got, want)
	}
}

// A long session (12,000 turns, about 7 MB of history) against a model with
// a 16k window: the request stays under the window, carries the newest
// turns, and no tool result is separated from its call.
func TestProviderFitsLongSession(t *testing.T) {
	srv := enginetest.NewOpenAI(t, enginetest.Options{Reply: "ok"})
	cfg := loadConfig(t, `{
  "agents": {"list": [{"id": "main", "default": true}]},
  "models": {"providers": {"fake": {"baseUrl": `+jsonStr(srv.URL)+`, "apiKey": "k", "api": "openai-completions",
    "models": [{"id": "m1", "contextWindow": 16000, "maxTokens": 2048}]}}}
}`, nil)
	e := &Provider{Config: cfg, Now: func() time.Time { return fixedNow }, PersonaEnv: noHome}
	req := baseRequest()
	req.History = synthHistory(12000, 500)
	res, err := e.Turn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	rec := srv.Last()
	msgs := rec.Request["messages"].([]any)
	chars := 0
	for _, m := range msgs {
		b, _ := json.Marshal(m)
		chars += len(b)
	}
	// the whole request body, JSON framing included, under the window minus
	// the reply
	if tokens := chars / 4; tokens > 16000-2048 {
		t.Fatalf("request ≈ %d tokens > %d", tokens, 16000-2048)
	}
	if res.ContextWindow != 16000 || res.DroppedMessages == 0 || res.DroppedMessages%4 != 0 {
		t.Fatalf("window %d dropped %d", res.ContextWindow, res.DroppedMessages)
	}
	body := string(rec.Body)
	if !strings.Contains(body, "question 11999") || !strings.Contains(body, "answer 11999") || strings.Contains(body, `"question 0"`) {
		t.Fatal("newest turn missing or oldest present")
	}
	// messages: system, then whole turns (user, assistant+tool call, tool, assistant), then the new message
	if r := msgs[1].(map[string]any)["role"]; r != "user" {
		t.Fatalf("first history message is %v", r)
	}
	if last := msgs[len(msgs)-1].(map[string]any); fmt.Sprint(last["content"]) != "hello there" && !strings.Contains(fmt.Sprint(last["content"]), "hello there") {
		t.Fatalf("last message %v", last)
	}
	for i, m := range msgs {
		mm := m.(map[string]any)
		if mm["role"] == "tool" {
			prev := msgs[i-1].(map[string]any)
			if prev["role"] != "assistant" || prev["tool_calls"] == nil {
				t.Fatalf("tool result %d not after its call: %v", i, prev)
			}
		}
	}
	t.Logf("sent %d of %d history messages (≈ %d tokens)", len(msgs)-2, len(req.History), chars/4)
}

// agents.defaults.contextTokens lowers the window.
func TestContextWindowFromConfig(t *testing.T) {
	cfg := loadConfig(t, `{"agents":{"defaults":{"contextTokens":50000}}}`, nil)
	if w := ContextWindow(cfg, nil); w != 50000 {
		t.Fatal(w)
	}
	if w := ContextWindow(nil, nil); w != DefaultContextWindow {
		t.Fatal(w)
	}
}
