package ops

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
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
		o, dir := fixtureOps(t, "state-2026.1.30", map[string]string{"OPENCLAW_GATEWAY_TOKEN": "tok"}, Config{Gateway: gw.URL()})
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
