//go:build interop

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/engine"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// TestInteropGatewayEngine: `sessions send --engine gateway` on the local
// state of a real 2026.1.30 whose gateway is up: the reply is the mock
// LLM's, the transcript on disk has the turn once (the gateway wrote it; we
// appended nothing), and replaying a step's idempotency key runs nothing
// twice. Then the engine's overhead per turn beside the gateway's own run
// time (meta.durationMs, the mock LLM's call inside it), logged for
// docs/PERFORMANCE.md.
func TestInteropGatewayEngine(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	g := peertest.StartGateway(t, p, "2026.1.30")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: g.Token})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const key = "agent:main:main"
	if _, err := c.RunAgent(ctx, gateway.AgentParams{Message: "seed the session", SessionKey: key}, nil); err != nil {
		t.Fatal(err)
	}

	// send through the binary: the config's own credentials, no flag
	out := peertest.Sessions(t, bin, g.StateDir, nil, "--config", g.ConfigPath, "send", "main", "interop via the gateway engine", "--engine", "gateway", "--json")
	reply := gjson.GetBytes(out, "reply").String()
	if !strings.HasPrefix(reply, "MOCK reply") || !strings.Contains(reply, "interop via the gateway engine") {
		t.Fatalf("send: %s", out)
	}
	runID := gjson.GetBytes(out, "runId").String()
	waitRun(t, bin, g, runID)
	rec := peertest.Sessions(t, bin, g.StateDir, nil, "--config", g.ConfigPath, "runs", "--json")
	if e := gjson.GetBytes(rec, "runs.#(runId==\""+runID+"\").engine").String(); e != "gateway" {
		t.Errorf("run record engine %q", e)
	}
	tx := transcriptOf(t, g, key)
	if n := countText(t, tx, "assistant", reply); n != 1 {
		t.Errorf("the reply is %d times in %s, want once", n, tx)
	}
	if n := countText(t, tx, "user", "interop via the gateway engine"); n != 1 {
		t.Errorf("the message is %d times in %s, want once", n, tx)
	}

	// the same run and step again: the gateway's cached answer, no new turn
	eng := &engine.Gateway{Endpoint: func() (gateway.Endpoint, error) { return gateway.Endpoint{URL: g.URL, Token: g.Token}, nil }}
	res, err := eng.Turn(ctx, engine.Request{SessionKey: key, Message: "interop via the gateway engine", RunID: runID, Step: "0-turn-0", Timeout: time.Minute})
	if err != nil || res.Reply != reply {
		t.Fatalf("replay: %v %+v", err, res)
	}
	if n := countText(t, tx, "user", "interop via the gateway engine"); n != 1 {
		t.Errorf("after a replay the message is %d times, want once", n)
	}

	// overhead: the engine's whole turn (dial + handshake, agent, agent.wait,
	// the final answer) vs one agent call on an open connection, vs the
	// gateway's own run time
	const n = 7
	var engT, rawT, runT []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		res, err := eng.Turn(ctx, engine.Request{SessionKey: key, Message: fmt.Sprintf("bench engine %d", i), RunID: fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), i), Step: "0-turn-0", Timeout: time.Minute})
		if err != nil || !strings.Contains(res.Reply, "MOCK reply") {
			t.Fatalf("engine turn %d: %v", i, err)
		}
		engT = append(engT, time.Since(start))
		start = time.Now()
		fin, err := c.RunAgent(ctx, gateway.AgentParams{Message: fmt.Sprintf("bench raw %d", i), SessionKey: key}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rawT = append(rawT, time.Since(start))
		runT = append(runT, time.Duration(gjson.GetBytes(fin.Result.Meta, "durationMs").Int())*time.Millisecond)
	}
	me, mr, mg := median(engT), median(rawT), median(runT)
	t.Logf("gateway engine per turn (median of %d): engine %v, one agent RPC on an open connection %v, the gateway's own run (durationMs, includes the mock LLM) %v; engine overhead beyond the run %v (%.2fx the raw RPC)",
		n, me, mr, mg, me-mg, float64(me)/float64(mr))
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func waitRun(t *testing.T, bin string, g *peertest.Gateway, runID string) {
	t.Helper()
	for i := 0; i < 300; i++ {
		out := peertest.Sessions(t, bin, g.StateDir, nil, "--config", g.ConfigPath, "runs", "--json")
		st := gjson.GetBytes(out, "runs.#(runId==\""+runID+"\").status").String()
		if st == "ok" {
			return
		}
		if st == "error" || st == "timeout" {
			t.Fatalf("run %s: %s", runID, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("run %s did not end", runID)
}

func transcriptOf(t *testing.T, g *peertest.Gateway, key string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(g.StateDir, "agents", "main", "sessions", "sessions.json"))
	if err != nil {
		t.Fatal(err)
	}
	id := gjson.GetBytes(data, gjson.Escape(key)+".sessionId").String()
	return filepath.Join(g.StateDir, "agents", "main", "sessions", id+".jsonl")
}

// countText counts the role's messages whose text is exactly text (or, for
// a user message, contains it).
func countText(t *testing.T, path, role, text string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		var e struct {
			Type    string `json:"type"`
			Message struct {
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &e) != nil || e.Type != "message" || e.Message.Role != role {
			continue
		}
		for _, c := range e.Message.Content {
			if c.Text == text || (role == "user" && strings.Contains(c.Text, text)) {
				n++
			}
		}
	}
	return n
}
