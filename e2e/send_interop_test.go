//go:build interop

// The real OpenClaw continues what `sessions send` wrote: on a copy
// of testdata/state-2026.1.30, our send (provider engine) talks to the peer's
// mock LLM; then a real `openclaw agent --local` turn on the same session
// must send our user and assistant messages to the model in its context, and
// the transcript must stay one linear parentId chain (openclaw-peer
// transcript-check).
// Run: make interop (or, from the repository root,
// OPENCLAW_PEER=$PWD/../shared/peer/openclaw-peer go test -tags interop
// -run TestInteropSend -count=1 -v ./e2e/).
//
// Uses internal/testutil/peertest and interop_test.go's decode; TestMain is
// script_test.go's.

package e2e_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// messageText is the text of an OpenAI message's content (string or parts).
func messageText(m map[string]any) string {
	switch c := m["content"].(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, p := range c {
			pm, _ := p.(map[string]any)
			if s, ok := pm["text"].(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

func TestInteropSendThenOpenClawContinues(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	state, home := peertest.State(t)
	url, logPath := peertest.StartMockLLM(t, p)
	peertest.SetProviderURL(t, state, "mock", url)
	ours := func(args ...string) []byte {
		t.Helper()
		return peertest.Sessions(t, bin, state, nil, args...)
	}

	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	first := "interop " + stamp + ": remember the word zebra"
	second := "interop " + stamp + ": which word did I ask you to remember?"

	// 1. our send, provider engine, against the mock LLM
	var res struct {
		RunID, Status, Reply, SessionKey, Error string
	}
	decode(t, "send --json", ours("send", "main", first, "--json", "--timeout", "60"), &res)
	if res.Status != "ok" {
		t.Fatalf("send: %+v", res)
	}
	t.Logf("our send: run %s, reply %q", res.RunID, res.Reply)
	// let the run end (the announce step) before OpenClaw takes the session;
	// minutes on a loaded machine, where 60 s did not do
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var runs struct {
			Runs []struct {
				Status string `json:"status"`
				Steps  []struct {
					Name, Status, Reply string
				} `json:"steps"`
				Delivery map[string]any `json:"delivery"`
			} `json:"runs"`
		}
		decode(t, "runs --json", ours("runs", "--json"), &runs)
		if len(runs.Runs) == 1 && runs.Runs[0].Status != "running" && runs.Runs[0].Status != "accepted" {
			if runs.Runs[0].Status != "ok" {
				t.Fatalf("run ended %+v", runs.Runs[0])
			}
			t.Logf("our run: steps %+v, delivery %v", runs.Runs[0].Steps, runs.Runs[0].Delivery)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not end: %+v", runs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	var list struct {
		Sessions []struct {
			Key, SessionID, TranscriptPath string
		} `json:"sessions"`
	}
	decode(t, "list --json", ours("list", "--json"), &list)
	var sessionID, transcript string
	for _, s := range list.Sessions {
		if s.Key == "main" {
			sessionID, transcript = s.SessionID, s.TranscriptPath
		}
	}
	if sessionID == "" {
		t.Fatalf("no main session in %+v", list)
	}
	nOurs := len(peertest.ReadMockLog(t, logPath))

	// 2. the real OpenClaw, same session
	out := peertest.OpenClaw(t, p, home, state, "agent", "--local", "--agent", "main", "--session-id", sessionID, "--message", second, "--json")
	t.Logf("openclaw agent --local: %.600s", bytes.TrimSpace(out))

	// 3. what OpenClaw sent to the model: our user and assistant messages, in order
	logs := peertest.ReadMockLog(t, logPath)
	if len(logs) <= nOurs {
		t.Fatalf("OpenClaw made no model request (log has %d, ours %d)", len(logs), nOurs)
	}
	var theirs *peertest.MockRequest
	for i := nOurs; i < len(logs); i++ {
		msgs := logs[i].Request.Messages
		if len(msgs) > 0 && strings.Contains(messageText(msgs[len(msgs)-1]), second) {
			theirs = &logs[i]
			break
		}
	}
	if theirs == nil {
		t.Fatalf("no request of OpenClaw ends with %q", second)
	}
	t.Logf("OpenClaw's request: model %s, stream %v, roles %v", theirs.Request.Model, theirs.Stream, theirs.Roles)
	iUser, iAssistant := -1, -1
	for i, m := range theirs.Request.Messages {
		role, _ := m["role"].(string)
		text := messageText(m)
		switch {
		case role == "user" && strings.Contains(text, first) && iUser < 0:
			iUser = i
			t.Logf("OpenClaw's context [%d] %s: %q", i, role, text)
		case role == "assistant" && iUser >= 0 && iAssistant < 0 && text == res.Reply:
			iAssistant = i
			t.Logf("OpenClaw's context [%d] %s: %q", i, role, text)
		}
	}
	if iUser < 0 {
		t.Errorf("OpenClaw did not send our user message %q", first)
	}
	if iAssistant != iUser+1 {
		t.Errorf("OpenClaw did not send our assistant reply %q right after it (user at %d, assistant at %d)", res.Reply, iUser, iAssistant)
	}
	last := theirs.Request.Messages[len(theirs.Request.Messages)-1]
	t.Logf("OpenClaw's context [%d] %s: %q", len(theirs.Request.Messages)-1, last["role"], messageText(last))

	// 4. one linear chain: our lines and OpenClaw's
	cout, err := peertest.TranscriptCheck(p, transcript, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("transcript-check: %s", cout)
	var hist struct {
		Messages []struct {
			Role    string `json:"role"`
			Model   string `json:"model"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	decode(t, "history --json", ours("history", "main", "--raw", "--limit", "8", "--json"), &hist)
	var seq []string
	for _, m := range hist.Messages {
		text := ""
		if len(m.Content) > 0 {
			text = m.Content[0].Text
		}
		seq = append(seq, fmt.Sprintf("%s(%s): %.70s", m.Role, m.Model, text))
	}
	t.Logf("the session's last messages:\n  %s", strings.Join(seq, "\n  "))
	if n := len(hist.Messages); n < 2 || hist.Messages[n-2].Role != "user" || !strings.Contains(hist.Messages[n-2].Content[0].Text, second) {
		t.Errorf("OpenClaw's turn is not the end of the transcript: %v", seq)
	}
}
