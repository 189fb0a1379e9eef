//go:build interop

package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// Spawn, wait, announce and remove a sub-agent on REAL gateways of both
// versions, and what OpenClaw's own `openclaw sessions --json` (and, on
// 1.30, its store) records about the child.
func TestInteropSpawn(t *testing.T) {
	p := peertest.Peer(t)
	for _, tc := range []struct {
		version  string
		protocol int
	}{{"2026.1.30", 3}, {"2026.9.6", 4}} {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			g := peertest.StartGateway(t, p, tc.version)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			admin, err := gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: g.Token})
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close()
			// A token connection that asks for read+write only (what a
			// non-admin operator has).
			rw, err := gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: g.Token, Scopes: []string{"operator.read", "operator.write"}})
			if err != nil {
				t.Fatal(err)
			}
			defer rw.Close()
			if admin.Protocol() != tc.protocol {
				t.Fatalf("protocol %d", admin.Protocol())
			}

			// 9.x's sessions.create needs the parent to exist: one turn first.
			const req = "agent:main:main"
			if _, err := admin.RunAgent(ctx, gateway.AgentParams{Message: "requester hello", SessionKey: req}, nil); err != nil {
				t.Fatal(err)
			}

			sp := gateway.SpawnParams{RequesterKey: req, Task: "interop spawn task", Label: "interop-child",
				SystemPrompt:   "# Subagent Context\n\nYou are a **subagent** spawned by the main agent for a specific task.",
				IdempotencyKey: gateway.NewIdempotencyKey()}
			st, err := rw.Spawn(ctx, sp)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("spawn: %+v", *st)
			wantRoute := map[int]string{3: gateway.RouteAgent, 4: gateway.RouteSessionsCreate}[tc.protocol]
			if st.Route != wantRoute || st.ChildSessionKey != gateway.SubagentKey("main", sp.IdempotencyKey) || st.RunID == "" || st.SessionID == "" {
				t.Fatalf("started %+v", st)
			}
			w, err := rw.WaitAgent(ctx, st.RunID, 2*time.Minute)
			if err != nil || w.Status != "ok" || (tc.protocol >= 4) != (w.TerminalReply != nil) {
				t.Fatalf("wait %+v %v", w, err)
			}
			// The task and the mock LLM's reply are in the child's history (the
			// mock quotes the start of the message: on 9.x, the envelope).
			reply := lastAssistant(t, ctx, rw, st.ChildSessionKey)
			h, err := rw.ChatHistory(ctx, gateway.HistoryParams{SessionKey: st.ChildSessionKey})
			if err != nil || len(h.Messages) < 2 {
				t.Fatalf("child history: %v", err)
			}
			if first := messageText(h.Messages[0]); !strings.HasPrefix(reply, "MOCK reply #1: ") || !strings.Contains(first, "interop spawn task") ||
				(tc.protocol >= 4) != strings.Contains(first, "[Subagent Task]") {
				t.Fatalf("child history: task %q, reply %q", first, reply)
			}
			if w.TerminalReply != nil && w.TerminalReply.Text != reply {
				t.Fatalf("9.x terminalReply %q, history %q", w.TerminalReply.Text, reply)
			}
			n := historyLen(t, ctx, rw, st.ChildSessionKey)

			// A retry of the idempotency key: same child, same run, no new turn.
			again, err := rw.Spawn(ctx, sp)
			if err != nil || again.ChildSessionKey != st.ChildSessionKey || again.RunID != st.RunID {
				t.Fatalf("retry %+v %v", again, err)
			}
			if tc.protocol == 3 {
				// 1.30: the idempotent agent call's final comes after
				// agent.wait, and a retry answers the same ack as the first
				// call until then; retry until the cached final answers, for
				// as long as a loaded machine makes the call take (ctx).
				for !again.Replayed {
					time.Sleep(100 * time.Millisecond)
					if again, err = rw.Spawn(ctx, sp); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !again.Replayed || historyLen(t, ctx, rw, st.ChildSessionKey) != n {
				t.Fatalf("the retried spawn ran again: %+v, %d then %d messages", again, n, historyLen(t, ctx, rw, st.ChildSessionKey))
			}

			// What OpenClaw itself records about the child.
			child := openclawRow(t, p, g, st.ChildSessionKey)
			if child == nil {
				t.Fatalf("openclaw sessions --json does not list %s", st.ChildSessionKey)
			}
			var compact bytes.Buffer
			_ = json.Compact(&compact, child)
			t.Logf("openclaw sessions --json row: %s", compact.String())
			var row struct {
				SessionID        string `json:"sessionId"`
				Label            string `json:"label"`
				SpawnedBy        string `json:"spawnedBy"`
				ParentSessionKey string `json:"parentSessionKey"`
				SpawnDepth       int    `json:"spawnDepth"`
			}
			_ = json.Unmarshal(child, &row)
			if tc.protocol == 3 {
				// 1.30's rows carry neither label nor spawnedBy: its store does.
				row.Label, row.SpawnedBy = storeEntry(t, p, g, st.ChildSessionKey)
				if row.SpawnedBy != req || row.Label != "interop-child" || row.SessionID != st.SessionID {
					t.Fatalf("1.30 child: %+v", row)
				}
			} else if row.ParentSessionKey != req || row.SpawnDepth != 1 || row.Label != "interop-child" || row.SpawnedBy != "" || row.SessionID != st.SessionID {
				t.Fatalf("9.6 child: %+v", row)
			}

			// Announce: without admin an agent turn on the requester, with it
			// chat.inject; both end in the requester's history.
			a, err := rw.Announce(ctx, gateway.AnnounceParams{SessionKey: req, Message: "Status: completed successfully\nResult: " + reply})
			if err != nil || a.Route != "agent" {
				t.Fatalf("announce without admin: %+v %v", a, err)
			}
			if w, err := rw.WaitAgent(ctx, a.RunID, 2*time.Minute); err != nil || w.Status != "ok" {
				t.Fatalf("announce turn: %+v %v", w, err)
			}
			if _, err := rw.Announce(ctx, gateway.AnnounceParams{SessionKey: req, Message: "x", Mode: gateway.AnnounceInject}); apperr.CodeOf(err) != apperr.CodeForbidden {
				t.Fatalf("chat.inject without admin: %d %v", apperr.CodeOf(err), err)
			}
			a, err = admin.Announce(ctx, gateway.AnnounceParams{SessionKey: req, Message: "Status: injected announce", Label: "interop-child"})
			if err != nil || a.Route != "chat.inject" {
				t.Fatalf("announce with admin: %+v %v", a, err)
			}
			// chat.inject prefixes the label: "[label]\n\n".
			if got := lastAssistant(t, ctx, rw, req); got != "[interop-child]\n\nStatus: injected announce" {
				t.Fatalf("requester's last message %q", got)
			}

			// Cleanup: 1.30 needs admin for sessions.delete; 9.x archives and
			// deletes with write scope.
			remover := rw
			if tc.protocol == 3 {
				_, err := rw.RemoveSpawned(ctx, st.ChildSessionKey, st.SessionID)
				if apperr.CodeOf(err) != apperr.CodeForbidden || !strings.Contains(err.Error(), "operator.admin") {
					t.Fatalf("1.30 delete without admin: %d %v", apperr.CodeOf(err), err)
				}
				remover = admin
			}
			rm, err := remover.RemoveSpawned(ctx, st.ChildSessionKey, st.SessionID)
			if err != nil || !rm.Deleted {
				t.Fatalf("remove %+v %v", rm, err)
			}
			t.Logf("removed: %+v", *rm)
			if openclawRow(t, p, g, st.ChildSessionKey) != nil {
				t.Fatalf("openclaw still lists %s", st.ChildSessionKey)
			}
			if _, err := remover.RemoveSpawned(ctx, st.ChildSessionKey, ""); apperr.CodeOf(err) != apperr.CodeNotFound {
				t.Fatalf("remove twice: %d %v", apperr.CodeOf(err), err)
			}
			if tc.protocol >= 4 {
				// 9.x: an unknown requester is not found; archive alone keeps
				// the child out of the default list.
				if _, err := rw.Spawn(ctx, gateway.SpawnParams{RequesterKey: "agent:main:nobody", Task: "x"}); apperr.CodeOf(err) != apperr.CodeNotFound {
					t.Fatalf("unknown parent: %d %v", apperr.CodeOf(err), err)
				}
				st2, err := rw.Spawn(ctx, gateway.SpawnParams{RequesterKey: req, Task: "second child"})
				if err != nil {
					t.Fatal(err)
				}
				if w, err := rw.WaitAgent(ctx, st2.RunID, 2*time.Minute); err != nil || w.Status != "ok" {
					t.Fatalf("wait 2: %+v %v", w, err)
				}
				// With a device identity Spawn also gives sessions.create the
				// idempotency key (without one 9.6 refuses it).
				dir := t.TempDir()
				id, err := gateway.LoadOrCreateIdentity(filepath.Join(dir, gateway.IdentityFile), time.Now())
				if err != nil {
					t.Fatal(err)
				}
				dc, err := gateway.Dial(ctx, gateway.Options{URL: g.URL, Token: g.Token, Device: gateway.DeviceAlways, Identity: id,
					Tokens: &gateway.TokenStore{Path: filepath.Join(dir, gateway.TokensFile)}, Scopes: []string{"operator.read", "operator.write"}})
				if err != nil {
					t.Fatal(err)
				}
				defer dc.Close()
				st3, err := dc.Spawn(ctx, gateway.SpawnParams{RequesterKey: req, Task: "device child"})
				if err != nil || !dc.UsedDevice() {
					t.Fatalf("spawn with a device identity: %v", err)
				}
				if w, err := dc.WaitAgent(ctx, st3.RunID, 2*time.Minute); err != nil || w.Status != "ok" {
					t.Fatalf("wait 3: %+v %v", w, err)
				}
				if _, err := rw.ArchiveSpawned(ctx, st2.ChildSessionKey, st2.SessionID); err != nil {
					t.Fatal(err)
				}
				page, err := rw.ListSessions(ctx, gateway.ListParams{Archived: "true"})
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, s := range page.Sessions {
					found = found || s.Key == st2.ChildSessionKey
				}
				if !found {
					t.Fatalf("archived child not listed with archived:true")
				}
			}
		})
	}
}

func historyLen(t *testing.T, ctx context.Context, c *gateway.Client, key string) int {
	t.Helper()
	h, err := c.ChatHistory(ctx, gateway.HistoryParams{SessionKey: key, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	return len(h.Messages)
}

func lastAssistant(t *testing.T, ctx context.Context, c *gateway.Client, key string) string {
	t.Helper()
	h, err := c.ChatHistory(ctx, gateway.HistoryParams{SessionKey: key, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	for i := len(h.Messages) - 1; i >= 0; i-- {
		var m struct {
			Role string `json:"role"`
		}
		if json.Unmarshal(h.Messages[i], &m) == nil && m.Role == "assistant" {
			return messageText(h.Messages[i])
		}
	}
	return ""
}

// openclawRow is key's row of `openclaw sessions --json`, or nil.
func openclawRow(t *testing.T, p string, g *peertest.Gateway, key string) json.RawMessage {
	t.Helper()
	out := g.OpenClaw(t, p, "sessions", "--json")
	var listed struct {
		Sessions []json.RawMessage `json:"sessions"`
	}
	if err := json.Unmarshal(out, &listed); err != nil {
		t.Fatalf("openclaw sessions --json: %v\n%s", err, out)
	}
	for _, r := range listed.Sessions {
		var k struct {
			Key string `json:"key"`
		}
		if json.Unmarshal(r, &k) == nil && k.Key == key {
			return r
		}
	}
	return nil
}

// storeEntry reads label and spawnedBy of key from the 1.30 store that
// `openclaw sessions --json` names.
func storeEntry(t *testing.T, p string, g *peertest.Gateway, key string) (label, spawnedBy string) {
	t.Helper()
	var listed struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(g.OpenClaw(t, p, "sessions", "--json"), &listed); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(listed.Path)
	if err != nil {
		t.Fatal(err)
	}
	var store map[string]struct {
		Label     string `json:"label"`
		SpawnedBy string `json:"spawnedBy"`
	}
	if err := json.Unmarshal(data, &store); err != nil {
		t.Fatal(err)
	}
	return store[key].Label, store[key].SpawnedBy
}
