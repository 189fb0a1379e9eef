package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
)

// lockedBuf is the fake's write log.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// calls are the logged calls of method, params decoded.
func (l *lockedBuf) calls(method string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		var c struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if json.Unmarshal([]byte(line), &c) == nil && c.Method == method {
			out = append(out, c.Params)
		}
	}
	return out
}

const requester = "agent:main:main"

func spawnFake(t *testing.T, protocol int, noAdmin bool) (*Client, *gatewaytest.Server, *lockedBuf) {
	t.Helper()
	d := gatewaytest.Data{Sessions: []json.RawMessage{json.RawMessage(`{"key":"agent:main:main","kind":"direct","sessionId":"11111111-1111-4111-8111-111111111111"}`)}}
	srv := gatewaytest.Start(protocol, "tok", d)
	log := &lockedBuf{}
	srv.W = &gatewaytest.Writes{Log: log, NoAdmin: noAdmin, TurnDelay: 20 * time.Millisecond}
	t.Cleanup(srv.Close)
	c, err := Dial(context.Background(), Options{URL: srv.URL(), Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, srv, log
}

func findRow(t *testing.T, c *Client, p ListParams, key string) *SessionRow {
	t.Helper()
	page, err := c.ListSessions(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range page.Sessions {
		if page.Sessions[i].Key == key {
			return &page.Sessions[i]
		}
	}
	return nil
}

func lastText(t *testing.T, c *Client, key string) string {
	t.Helper()
	h, err := c.ChatHistory(context.Background(), HistoryParams{SessionKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Messages) == 0 {
		return ""
	}
	var m struct {
		Content []struct{ Text string } `json:"content"`
	}
	_ = json.Unmarshal(h.Messages[len(h.Messages)-1], &m)
	if len(m.Content) == 0 {
		return ""
	}
	return m.Content[0].Text
}

// 2026.1.30: OpenClaw's own recipe — the model patch, then agent with
// spawnedBy, label, lane subagent, the system prompt, deliver false.
func TestSpawn130Recipe(t *testing.T) {
	ctx := context.Background()
	c, srv, log := spawnFake(t, 3, false)
	p := SpawnParams{RequesterKey: requester, Task: "count the files", Label: "counter", Model: "mock/mock-1",
		Thinking: "low", RunTimeoutSeconds: 90, SystemPrompt: "# Subagent Context\n...", IdempotencyKey: "idem-130"}
	st, err := c.Spawn(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	wantKey := SubagentKey("main", "idem-130")
	if st.Route != RouteAgent || st.ChildSessionKey != wantKey || st.RunID != "idem-130" || st.Replayed || !st.ModelApplied || st.SessionID == "" {
		t.Fatalf("started %+v (want key %s)", st, wantKey)
	}
	if !strings.HasPrefix(wantKey, "agent:main:subagent:") || len(wantKey) != len("agent:main:subagent:")+36 {
		t.Fatalf("child key %s", wantKey)
	}
	patches := log.calls("sessions.patch")
	if len(patches) != 1 || patches[0]["key"] != wantKey || patches[0]["model"] != "mock/mock-1" || len(patches[0]) != 2 {
		t.Fatalf("model patch %v", patches)
	}
	agents := log.calls("agent")
	want := map[string]any{"message": "count the files", "sessionKey": wantKey, "idempotencyKey": "idem-130", "deliver": false,
		"lane": "subagent", "extraSystemPrompt": "# Subagent Context\n...", "thinking": "low", "timeout": float64(90),
		"label": "counter", "spawnedBy": requester}
	if len(agents) != 1 || !sameMap(agents[0], want) {
		t.Fatalf("agent params %v", agents)
	}
	w, err := c.WaitAgent(ctx, st.RunID, 10*time.Second)
	if err != nil || w.Status != "ok" {
		t.Fatalf("wait %+v %v", w, err)
	}
	row := findRow(t, c, ListParams{SpawnedBy: requester}, wantKey)
	if row == nil || row.Label != "counter" || row.SessionID != st.SessionID {
		t.Fatalf("child row %+v", row)
	}
	if got := lastText(t, c, wantKey); got != "MOCK reply: count the files" {
		t.Fatalf("child reply %q", got)
	}

	// A retry of the idempotency key: the same child and run, no second turn.
	again, err := c.Spawn(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if again.ChildSessionKey != wantKey || again.RunID != st.RunID || !again.Replayed || srv.W.Turns() != 1 {
		t.Fatalf("retry %+v, %d turns", again, srv.W.Turns())
	}

	// Cleanup: a changed session is left alone, then sessions.delete.
	if _, err := c.RemoveSpawned(ctx, wantKey, "not-the-session"); apperr.CodeOf(err) != apperr.CodeError || findRow(t, c, ListParams{}, wantKey) == nil {
		t.Fatalf("remove of a changed session: %v", err)
	}
	rm, err := c.RemoveSpawned(ctx, wantKey, st.SessionID)
	if err != nil || !rm.Deleted || rm.Route != "sessions.delete" || findRow(t, c, ListParams{}, wantKey) != nil {
		t.Fatalf("remove %+v %v", rm, err)
	}
	if del := log.calls("sessions.delete"); len(del) != 1 || !sameMap(del[0], map[string]any{"key": wantKey, "deleteTranscript": true}) {
		t.Fatalf("delete params %v", del)
	}
	if _, err := c.RemoveSpawned(ctx, wantKey, ""); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("remove twice: %v", err)
	}
	// 9.x-only parameters are refused before sending.
	if _, err := c.Spawn(ctx, SpawnParams{RequesterKey: requester, Task: "x", SpawnDepth: 2}); apperr.CodeOf(err) != apperr.CodeState {
		t.Fatalf("spawnDepth on 1.30: %v", err)
	}
	if _, err := c.ArchiveSpawned(ctx, wantKey, ""); apperr.CodeOf(err) != apperr.CodeState {
		t.Fatalf("archive on 1.30: %v", err)
	}
}

// 1.30 with a token lacking operator.admin: the turn still starts (write),
// the model patch and sessions.delete are forbidden (exit 3) and say why.
func TestSpawn130NoAdmin(t *testing.T) {
	ctx := context.Background()
	c, _, _ := spawnFake(t, 3, true)
	st, err := c.Spawn(ctx, SpawnParams{RequesterKey: requester, Task: "t"})
	if err != nil || st.ModelApplied || st.RunID == "" {
		t.Fatalf("spawn without model: %+v %v", st, err)
	}
	_, err = c.Spawn(ctx, SpawnParams{RequesterKey: requester, Task: "t", Model: "mock/mock-1"})
	if apperr.CodeOf(err) != apperr.CodeForbidden || !strings.Contains(err.Error(), "operator.admin") {
		t.Fatalf("model patch without admin: %d %v", apperr.CodeOf(err), err)
	}
	_, err = c.RemoveSpawned(ctx, st.ChildSessionKey, "")
	if apperr.CodeOf(err) != apperr.CodeForbidden || !strings.Contains(err.Error(), "operator.admin scope, which OpenClaw 2026.1.x needs") {
		t.Fatalf("delete without admin: %d %v", apperr.CodeOf(err), err)
	}
}

// 2026.9.x: sessions.create with the parent link and the task envelope;
// nothing 1.30-only is sent; a retry starts nothing; archive + delete with
// a write-scope token.
func TestSpawn96Create(t *testing.T) {
	ctx := context.Background()
	c, srv, log := spawnFake(t, 4, true)
	p := SpawnParams{RequesterKey: requester, Task: "count the files", Label: "counter", Model: "mock/mock-1",
		Thinking: "low", RunTimeoutSeconds: 90, SystemPrompt: "ignored on 9.x", IdempotencyKey: "idem-96"}
	st, err := c.Spawn(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	wantKey := SubagentKey("main", "idem-96")
	if st.Route != RouteSessionsCreate || st.ChildSessionKey != wantKey || st.RunID == "" || st.RunID == "idem-96" || st.SessionID == "" || st.Replayed || st.LifecycleRevision == "" {
		t.Fatalf("started %+v", st)
	}
	creates := log.calls("sessions.create")
	want := map[string]any{"key": wantKey, "agentId": "main", "parentSessionKey": requester, "spawnDepth": float64(1),
		"task": SubagentTaskMessage("count the files", 1, 5), "label": "counter", "model": "mock/mock-1",
		"thinkingLevel": "low", "timeoutMs": float64(90000)}
	if len(creates) != 1 || !sameMap(creates[0], want) {
		t.Fatalf("sessions.create params %v", creates)
	}
	if len(log.calls("agent")) != 0 || len(log.calls("sessions.patch")) != 0 {
		t.Fatal("9.x spawn sent agent or sessions.patch")
	}
	w, err := c.WaitAgent(ctx, st.RunID, 10*time.Second)
	if err != nil || w.Status != "ok" || w.TerminalReply == nil || !strings.HasPrefix(w.TerminalReply.Text, "MOCK reply: [Subagent Context]") {
		t.Fatalf("wait %+v %v", w, err)
	}
	row := findRow(t, c, ListParams{}, wantKey)
	if row == nil || row.ParentSessionKey != requester || row.Label != "counter" || row.SpawnedBy != "" {
		t.Fatalf("child row %+v", row)
	}
	if got := lastText(t, c, wantKey); !strings.Contains(got, "[Subagent Task]") || !strings.Contains(got, "count the files") {
		t.Fatalf("child reply %q", got)
	}
	again, err := c.Spawn(ctx, p)
	if err != nil || !again.Replayed || again.RunID != st.RunID || again.SessionID != st.SessionID || srv.W.Turns() != 1 || len(log.calls("sessions.create")) != 1 {
		t.Fatalf("retry %+v %v, %d turns", again, err, srv.W.Turns())
	}
	// The same child key under another parent is not ours.
	if _, err := c.Spawn(ctx, SpawnParams{RequesterKey: "agent:main:other", Task: "x", IdempotencyKey: "idem-96"}); apperr.CodeOf(err) != apperr.CodeError || !strings.Contains(err.Error(), "another parent") {
		t.Fatalf("foreign child: %v", err)
	}
	// A requester the gateway does not know: not found.
	if _, err := c.Spawn(ctx, SpawnParams{RequesterKey: "agent:main:nobody", Task: "x"}); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("unknown parent: %d %v", apperr.CodeOf(err), err)
	}
	// 1.30-only agent fields never reach 9.x.
	if _, err := c.StartAgent(ctx, AgentParams{Message: "x", SessionKey: wantKey, SpawnedBy: requester}); apperr.CodeOf(err) != apperr.CodeState {
		t.Fatalf("spawnedBy on 9.x: %v", err)
	}

	if _, err := c.RemoveSpawned(ctx, wantKey, "not-the-session"); apperr.CodeOf(err) != apperr.CodeError || findRow(t, c, ListParams{}, wantKey) == nil {
		t.Fatalf("remove of a changed session: %v", err)
	}
	rm, err := c.RemoveSpawned(ctx, wantKey, "")
	if err != nil || !rm.Deleted || !rm.Archived || findRow(t, c, ListParams{Archived: "all"}, wantKey) != nil {
		t.Fatalf("remove %+v %v", rm, err)
	}
	patch := log.calls("sessions.patch")
	del := log.calls("sessions.delete")
	if len(del) != 1 || !sameMap(del[0], map[string]any{"key": wantKey, "archivedOnly": true, "expectedSessionId": st.SessionID, "deleteTranscript": true}) ||
		!sameMap(patch[len(patch)-1], map[string]any{"key": wantKey, "archived": true, "expectedSessionId": st.SessionID}) {
		t.Fatalf("archive %v, delete %v", patch, del)
	}
	if _, err := c.RemoveSpawned(ctx, wantKey, ""); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("remove twice: %v", err)
	}

	// ArchiveSpawned alone keeps the child, archived.
	st2, err := c.Spawn(ctx, SpawnParams{RequesterKey: requester, Task: "second"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ArchiveSpawned(ctx, st2.ChildSessionKey, st2.SessionID); err != nil {
		t.Fatal(err)
	}
	if findRow(t, c, ListParams{}, st2.ChildSessionKey) != nil || findRow(t, c, ListParams{Archived: "true"}, st2.ChildSessionKey) == nil {
		t.Fatal("archived child: listed among the live ones, or not among the archived")
	}
}

// A gateway without the methods a route needs: unsupported (exit 10).
func TestSpawnUnknownMethod(t *testing.T) {
	srv := gatewaytest.Start(4, "tok", gatewaytest.Data{})
	defer srv.Close()
	c, err := Dial(context.Background(), Options{URL: srv.URL(), Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Spawn(context.Background(), SpawnParams{RequesterKey: requester, Task: "x"})
	if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "does not support sessions.describe") {
		t.Fatalf("%d %v", apperr.CodeOf(err), err)
	}
	for _, p := range []SpawnParams{{RequesterKey: requester}, {Task: "x"}, {RequesterKey: requester, Task: "x", AgentID: "a:b"}, {RequesterKey: requester, Task: "x", RunTimeoutSeconds: -1}} {
		if _, err := c.Spawn(context.Background(), p); apperr.CodeOf(err) != apperr.CodeUsage {
			t.Fatalf("%+v: %v", p, err)
		}
	}
	if len(srv.Methods()) != 1 {
		t.Fatalf("refused spawns reached the gateway: %v", srv.Methods())
	}
}

// Announce: chat.inject with admin; without it Auto falls back to an agent
// turn on the requester, Inject is forbidden (exit 3).
func TestAnnounce(t *testing.T) {
	ctx := context.Background()
	for _, proto := range []int{3, 4} {
		c, _, log := spawnFake(t, proto, false)
		a, err := c.Announce(ctx, AnnounceParams{SessionKey: requester, Message: "Status: completed successfully", Label: "counter"})
		if err != nil || a.Route != "chat.inject" || a.MessageID == "" || lastText(t, c, requester) != "[counter]\n\nStatus: completed successfully" {
			t.Fatalf("protocol %d inject %+v %v", proto, a, err)
		}
		if inj := log.calls("chat.inject"); len(inj) != 1 || inj[0]["label"] != "counter" {
			t.Fatalf("inject params %v", inj)
		}

		c, _, log = spawnFake(t, proto, true)
		a, err = c.Announce(ctx, AnnounceParams{SessionKey: requester, Message: "Status: done", IdempotencyKey: "ann-1"})
		if err != nil || a.Route != "agent" || a.RunID != "ann-1" {
			t.Fatalf("protocol %d fallback %+v %v", proto, a, err)
		}
		if ag := log.calls("agent"); len(ag) != 1 || ag[0]["sessionKey"] != requester || ag[0]["message"] != "Status: done" {
			t.Fatalf("announce turn %v", ag)
		}
		_, err = c.Announce(ctx, AnnounceParams{SessionKey: requester, Message: "x", Mode: AnnounceInject})
		if apperr.CodeOf(err) != apperr.CodeForbidden || !strings.Contains(err.Error(), "operator.admin") {
			t.Fatalf("protocol %d inject without admin: %d %v", proto, apperr.CodeOf(err), err)
		}
		if _, err := c.Announce(ctx, AnnounceParams{SessionKey: requester, Message: "x", Mode: "loud"}); apperr.CodeOf(err) != apperr.CodeUsage {
			t.Fatalf("bad mode: %v", err)
		}
	}
}

func TestSubagentKeyAndEnvelope(t *testing.T) {
	if SubagentKey("main", "a") != SubagentKey("main", "a") || SubagentKey("main", "a") == SubagentKey("main", "b") || SubagentKey("ops", "a") != "agent:ops:subagent:"+strings.TrimPrefix(SubagentKey("main", "a"), "agent:main:subagent:") {
		t.Fatal("SubagentKey is not a function of the idempotency key alone")
	}
	// 9.6's buildSubagentTaskMessage, spawnMode "session", depth 1 of 5.
	want := "[Subagent Context] You are running as a subagent (depth 1/5). Complete the current [Subagent Task]; inherited conversation is background context, not your assignment.\n\n" +
		"[Subagent Context] This subagent session is persistent and remains available for thread follow-up messages.\n\n" +
		"[Subagent Task]\n\ndo it\n\nBegin. Execute the assigned task to completion."
	if got := SubagentTaskMessage("  do it\n", 1, 5); got != want {
		t.Fatalf("envelope\n%q\nwant\n%q", got, want)
	}
	if AgentOfKey("agent:ops:main") != "ops" || AgentOfKey("main") != "" {
		t.Fatal("AgentOfKey")
	}
}

func sameMap(got, want map[string]any) bool {
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	return bytes.Equal(a, b)
}

// RunAgent with the key of a call still running: 9.x answers "in_flight"
// once, and no final follows. RunAgent waits for the run and returns the
// cached final — not "in_flight" as if it were how the turn ended — and
// the turn ran once.
func TestRunAgentReplayOfRunningKeyWaitsForTheFinal(t *testing.T) {
	c, srv, _ := spawnFake(t, 4, false)
	srv.W.TurnDelay = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := AgentParams{Message: "hello twice", SessionKey: requester, IdempotencyKey: "idem-replay"}
	ack, err := c.StartAgent(ctx, p)
	if err != nil || ack.Status != "accepted" {
		t.Fatalf("start %+v %v", ack, err)
	}
	var acked AgentAck
	fin, err := c.RunAgent(ctx, p, func(a AgentAck) { acked = a })
	if err != nil {
		t.Fatal(err)
	}
	if fin.Status != "ok" || fin.Text() != "MOCK reply: hello twice" || fin.RunID != "idem-replay" {
		t.Fatalf("final %+v (%q)", fin, fin.Text())
	}
	if acked.Status != "in_flight" || acked.RunID != "idem-replay" {
		t.Fatalf("ack %+v", acked)
	}
	if n := srv.W.Turns(); n != 1 {
		t.Fatalf("%d turns ran for one key", n)
	}
}
