package ops

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
	"github.com/openclaw/sessions/internal/gatewaysel"
)

const hookKey = "agent:main:hook:github:push-42"

// Locally each era writes its store: the JSON era deletes (transcript
// renamed), the SQLite era archives (archivedAt), reset there is refused
// (exit 10) without a gateway; a dry run writes nothing.
func TestLifecycleLocal(t *testing.T) {
	ctx := context.Background()
	o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{})
	res, err := o.Delete(ctx, DeleteRequest{Keys: []string{hookKey, hookKey}, DryRun: true})
	if err != nil || res.Action != "delete" || !res.DryRun || res.Count != 1 {
		t.Fatalf("dry delete: %+v %v", res, err)
	}
	if orig, _, _ := strings.Cut(res.Sessions[0].Transcripts[0], ".deleted."); orig == "" {
		t.Fatalf("transcripts %v", res.Sessions[0].Transcripts)
	} else if _, err := os.Stat(orig); err != nil {
		t.Fatalf("a dry run renamed: %v", err)
	}
	res, err = o.Delete(ctx, DeleteRequest{Keys: []string{hookKey}})
	if err != nil || res.Count != 1 || res.Bytes == 0 {
		t.Fatalf("delete: %+v %v", res, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "agents", "main", "sessions", "sessions.json")); strings.Contains(string(data), hookKey) {
		t.Error("entry still in sessions.json")
	}
	if _, err := o.Delete(ctx, DeleteRequest{Keys: []string{"main"}}); err == nil || !strings.Contains(err.Error(), "Cannot delete the main session") {
		t.Fatalf("delete main: %v", err)
	}

	o96, _ := fixtureOps(t, "state-2026.9.6", map[string]string{"OPENCLAW_GATEWAY_PORT": "1"}, Config{})
	if _, err := o96.Reset(ctx, ResetRequest{Key: hookKey}); apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "sessions reset goes through OpenClaw's gateway there") {
		t.Fatalf("reset on 2026.9.6 without a gateway: %v", err)
	}
	ar, err := o96.Archive(ctx, ArchiveRequest{Key: hookKey})
	if err != nil || ar.Action != "archive" || ar.Count != 1 || ar.Sessions[0].ArchivedAt == 0 {
		t.Fatalf("archive: %+v %v", ar, err)
	}
	if _, err := o96.Prune(ctx, PruneRequest{OlderThan: 1, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	asAgent, _ := fixtureOps(t, "state-2026.1.30", nil, Config{As: "agent:main:main"})
	if _, err := asAgent.Prune(ctx, PruneRequest{OlderThan: 1, DryRun: true}); apperr.CodeOf(err) != apperr.CodeForbidden {
		t.Fatalf("prune by an agent: %v", err)
	}
}

// Through a named gateway every lifecycle write is its RPC (1.30 and
// 9.x), nothing is written locally, and a dry run calls no writing RPC.
func TestLifecycleThroughANamedGateway(t *testing.T) {
	ctx := context.Background()
	for _, proto := range []int{3, 4} {
		gw := gatewaytest.Start(proto, "tok", gatewaytest.Data{Sessions: []json.RawMessage{
			json.RawMessage(`{"key":"agent:main:hook:github:push-42","kind":"direct","sessionId":"02161643-4320-459e-9b07-c42d02d97f2f","updatedAt":1795446000000}`),
		}})
		gw.W = &gatewaytest.Writes{}
		t.Cleanup(gw.Close)
		o, dir := fixtureOps(t, "state-2026.1.30", map[string]string{"OPENCLAW_GATEWAY_TOKEN": "tok"}, Config{Gateway: gatewaysel.Selector{URL: gw.URL()}})
		before, _ := os.ReadFile(filepath.Join(dir, "agents", "main", "sessions", "sessions.json"))
		res, err := o.Delete(ctx, DeleteRequest{Keys: []string{hookKey}, DryRun: true})
		if err != nil || res.Count != 1 {
			t.Fatalf("p%d dry delete: %+v %v", proto, res, err)
		}
		if slices.Contains(gw.Methods(), "sessions.delete") {
			t.Fatalf("p%d: a dry run called sessions.delete", proto)
		}
		res, err = o.Delete(ctx, DeleteRequest{Keys: []string{hookKey}})
		if err != nil || res.Count != 1 || !slices.Contains(gw.Methods(), "sessions.delete") {
			t.Fatalf("p%d delete: %+v %v (%v)", proto, res, err, gw.Methods())
		}
		after, _ := os.ReadFile(filepath.Join(dir, "agents", "main", "sessions", "sessions.json"))
		if string(before) != string(after) {
			t.Fatalf("p%d: sessions.json written while going through the gateway", proto)
		}
	}
}

// Through a gateway the lifecycle operations need no state dir on this
// machine: the sessions are named over the gateway (a key or a
// sessionId), the main session and an unknown key are refused before any
// writing call, prune selects from the gateway's own listing, and what
// the gateway refuses (a missing operator.admin scope, a gone host) is an
// error with its exit code; the missing state dir is never created.
func TestLifecycleThroughAGatewayWithoutState(t *testing.T) {
	ctx := context.Background()
	const hookID = "02161643-4320-459e-9b07-c42d02d97f2f"
	for _, proto := range []int{3, 4} {
		gw := gatewaytest.Start(proto, "tok", gatewaytest.Data{Sessions: []json.RawMessage{
			json.RawMessage(`{"key":"agent:main:main","kind":"direct","sessionId":"11111111-1111-4111-8111-111111111111","updatedAt":1700000000000}`),
			json.RawMessage(`{"key":"agent:main:hook:github:push-42","kind":"direct","sessionId":"` + hookID + `","updatedAt":1795446000000}`),
			json.RawMessage(`{"key":"agent:main:cron:job-1","kind":"direct","sessionId":"33333333-3333-4333-8333-333333333333","updatedAt":1700000000000}`),
			json.RawMessage(`{"key":"agent:ops:cron:job-2","kind":"direct","sessionId":"44444444-4444-4444-8444-444444444444","updatedAt":1700000000000}`),
		}})
		gw.W = &gatewaytest.Writes{}
		t.Cleanup(gw.Close)
		none := filepath.Join(t.TempDir(), "none")
		getenv := writesEnv(t, map[string]string{"OPENCLAW_GATEWAY_TOKEN": "tok"})
		now := func() time.Time { return time.UnixMilli(1795450000000) }
		o := New(Config{Gateway: gatewaysel.Selector{URL: gw.URL()}, StateDir: none, Getenv: getenv, Now: now})
		writing := func() bool { return slices.Contains(gw.Methods(), "sessions.delete") }

		if _, err := o.Delete(ctx, DeleteRequest{Keys: []string{"agent:main:nope"}}); apperr.CodeOf(err) != apperr.CodeNotFound {
			t.Fatalf("p%d unknown key: %v", proto, err)
		}
		if _, err := o.Delete(ctx, DeleteRequest{Keys: []string{hookKey, "agent:main:main"}}); err == nil || !strings.Contains(err.Error(), "Cannot delete the main session") || writing() {
			t.Fatalf("p%d delete main: %v (%v)", proto, err, gw.Methods())
		}
		if _, err := o.Archive(ctx, ArchiveRequest{Key: "agent:main:main"}); err == nil || !strings.Contains(err.Error(), "Cannot archive an agent's main session") {
			t.Fatalf("p%d archive main: %v", proto, err)
		}
		ar, err := o.Archive(ctx, ArchiveRequest{Key: hookKey, DryRun: true})
		if err != nil || ar.Count != 1 || (proto >= 4) != (ar.Sessions[0].ArchivedAt == now().UnixMilli()) || writing() {
			t.Fatalf("p%d dry archive: %+v %v", proto, ar, err)
		}
		res, err := o.Delete(ctx, DeleteRequest{Keys: []string{hookID, hookKey}})
		if err != nil || res.Count != 1 || res.Sessions[0].Key != hookKey || res.Sessions[0].SessionID != hookID {
			t.Fatalf("p%d delete by sessionId: %+v %v", proto, res, err)
		}
		pr, err := o.Prune(ctx, PruneRequest{OlderThan: time.Hour, DryRun: true})
		if err != nil || pr.Count != 1 || pr.Sessions[0].Key != "agent:main:cron:job-1" || len(pr.Skipped) != 1 || pr.Skipped[0].Reason != "main session" {
			t.Fatalf("p%d prune of the default agent: %+v %v", proto, pr, err)
		}
		pr, err = o.Prune(ctx, PruneRequest{OlderThan: time.Hour, AllAgents: true, Kinds: []string{"cron"}})
		if err != nil || pr.Count != 2 {
			t.Fatalf("p%d prune --all-agents: %+v %v", proto, pr, err)
		}
		gw.W.NoAdmin = true
		if _, err := o.Delete(ctx, DeleteRequest{Keys: []string{"agent:main:main"}}); err == nil {
			t.Fatalf("p%d: the main session deleted", proto)
		}
		gw.SetSessions(append(gw.Data.Sessions, json.RawMessage(`{"key":"agent:main:hook:x","kind":"direct","sessionId":"55555555-5555-4555-8555-555555555555","updatedAt":1795446000000}`)))
		if _, err := o.Delete(ctx, DeleteRequest{Keys: []string{"agent:main:hook:x"}}); apperr.CodeOf(err) != apperr.CodeForbidden || !strings.Contains(err.Error(), "operator.admin") {
			t.Fatalf("p%d without operator.admin: %v", proto, err)
		}
		gw.Close()
		if _, err := New(o.Config()).Reset(ctx, ResetRequest{Key: hookKey}); err == nil || apperr.CodeOf(err) == apperr.CodeError {
			t.Fatalf("p%d a gone gateway: %v (exit %d)", proto, err, apperr.CodeOf(err))
		}
		if _, err := os.Stat(none); !os.IsNotExist(err) {
			t.Fatalf("p%d: the state dir was made: %v", proto, err)
		}
	}
}
