//go:build interop

// The provider engine's system prompt beside the real OpenClaw 2026.1.30's
// (engines): the same agent, workspace and session, one turn by
// `openclaw agent --local`, one by `sessions send` (provider engine), both
// against the peer's mock LLM with full request logs. The Project Context
// (the workspace files, in OpenClaw's order, an oversized SOUL.md truncated)
// must be byte-identical; the sections that differ are logged and listed in
// docs/ENGINES.md.
// Run from the repository root: OPENCLAW_PEER=$PWD/../shared/peer/openclaw-peer
// go test -tags interop -run TestInteropPersona -count=1 -v ./e2e/

package e2e_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

func TestInteropPersonaSystemPrompt(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	state, home := peertest.State(t)
	url, logPath := peertest.StartMockLLM(t, p)
	peertest.SetProviderURL(t, state, "mock", url)
	ws := filepath.Join(home, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	soul := "# Soul\nYou are a pirate.\n" + strings.Repeat("arr ", 300) + "\nTHE END\n"
	for name, content := range map[string]string{"AGENTS.md": "# Agents\nBe brief. Never push.\n", "SOUL.md": soul, "MEMORY.md": "remember zebra\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	peertest.EditConfig(t, state, func(cfg map[string]any) {
		agents := cfg["agents"].(map[string]any)
		defaults := agents["defaults"].(map[string]any)
		defaults["bootstrapMaxChars"] = 500
		defaults["userTimezone"] = "UTC"
		for _, a := range agents["list"].([]any) {
			if am := a.(map[string]any); am["id"] == "main" {
				am["workspace"] = ws
			}
		}
	})
	var sid string
	{
		var st map[string]map[string]any
		decode(t, "sessions.json", mustRead(t, filepath.Join(state, "agents", "main", "sessions", "sessions.json")), &st)
		sid, _ = st["agent:main:main"]["sessionId"].(string)
	}
	peertest.OpenClaw(t, p, home, state, "agent", "--local", "--agent", "main", "--session-id", sid, "--message", "persona check openclaw", "--json")
	var res struct{ Status, Reply string }
	decode(t, "send", peertest.Sessions(t, bin, state, []string{"HOME=" + home}, "send", "main", "persona check sessions", "--json", "--timeout", "600"), &res)
	if res.Status != "ok" {
		t.Fatalf("send: %+v", res)
	}
	waitRunsDone(t, bin, state)
	var theirs, ours string
	for _, r := range peertest.ReadMockLog(t, logPath) {
		if len(r.Request.Messages) == 0 {
			continue
		}
		sys := messageText(r.Request.Messages[0])
		last := messageText(r.Request.Messages[len(r.Request.Messages)-1])
		switch {
		case strings.Contains(last, "persona check openclaw") && theirs == "":
			theirs = sys
		case strings.Contains(last, "persona check sessions") && ours == "":
			ours = sys
		}
	}
	if theirs == "" || ours == "" {
		t.Fatalf("requests not found (openclaw %d chars, ours %d chars)", len(theirs), len(ours))
	}
	project := func(s string) string {
		i := strings.Index(s, "\n# Project Context\n")
		j := strings.Index(s, "\n## Silent Replies\n")
		if i < 0 || j < i {
			t.Fatalf("no Project Context in:\n%s", s)
		}
		return s[i:j]
	}
	if a, b := project(theirs), project(ours); a != b {
		t.Errorf("Project Context differs:\n--- openclaw 1.30\n%s\n--- sessions\n%s", a, b)
	}
	for _, want := range []string{"[...truncated, read SOUL.md for full content...]", "## AGENTS.md\n# Agents\nBe brief.", "## MEMORY.md\nremember zebra"} {
		if !strings.Contains(ours, want) {
			t.Errorf("ours lacks %q", want)
		}
	}
	if strings.Index(ours, "## AGENTS.md") > strings.Index(ours, "## SOUL.md") {
		t.Error("AGENTS.md after SOUL.md")
	}
	heads := func(s string) []string {
		var h []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "## ") || strings.HasPrefix(l, "## ") && !strings.HasSuffix(l, ".md") {
				h = append(h, l)
			}
		}
		return h
	}
	th, oh := heads(theirs), heads(ours)
	for _, h := range th {
		if !slices.Contains(oh, h) {
			t.Logf("only in OpenClaw 1.30: %s", h)
		}
	}
	for _, h := range oh {
		if !slices.Contains(th, h) {
			t.Logf("only in sessions: %s", h)
		}
	}
	t.Logf("system prompt: OpenClaw %d chars, sessions %d chars", len(theirs), len(ours))
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// waitRunsDone waits (5 minutes at most: a loaded machine is slow) until
// no run of STATE is queued or running, so that the temp dirs can go.
func waitRunsDone(t *testing.T, bin, state string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var r struct {
			Runs []struct{ Status string } `json:"runs"`
		}
		decode(t, "runs", peertest.Sessions(t, bin, state, nil, "runs", "--json"), &r)
		busy := false
		for _, x := range r.Runs {
			if x.Status == "queued" || x.Status == "running" || x.Status == "accepted" {
				busy = true
			}
		}
		if !busy {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs still busy: %+v", r.Runs)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
