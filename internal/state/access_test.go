package state

import (
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/policy"
)

// Access is the one place --as is decided, for the local config and a
// gateway host's alike.
func TestAccess(t *testing.T) {
	cfg, err := config.FromJSON("t", []byte(`{"agents":{"list":[{"id":"main","default":true},{"id":"ops"},{"id":"vault"}],
		"defaults":{"sandbox":{"mode":"non-main"}}},"tools":{"agentToAgent":{"enabled":true,"allow":["main","ops"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	op := NewAccess(cfg, "", "", false)
	if !op.Req.Operator() || op.Req.Agent != "main" || op.CanSeeAgent("vault", policy.OpHistory) != "" {
		t.Fatalf("operator: %+v", op.Req)
	}
	if a := NewAccess(cfg, "", "ops", false); a.Req.Agent != "ops" {
		t.Fatalf("--agent ops: requester agent %q", a.Req.Agent)
	}

	ops := NewAccess(cfg, "agent:ops:main", "", false)
	if ops.Req.Agent != "ops" || ops.Req.Restrict || ops.Req.Sandboxed {
		t.Fatalf("ops main: %+v", ops.Req)
	}
	if ops.CanSeeAgent("main", policy.OpHistory) != "" || ops.CanSeeAgent("vault", policy.OpHistory) != policy.MsgHistoryA2ADenied ||
		ops.CanSeeAgent("vault", policy.OpSend) != policy.MsgSendA2ADenied {
		t.Fatal("ops: agent-to-agent allow list not applied")
	}
	// a session of an agent it may not reach is one that does not exist
	if err := ops.CheckTarget("agent:vault:main", "", "vault", ""); apperr.CodeOf(err) != apperr.CodeNotFound || err.Error() != ops.NotFound("agent:vault:main").Error() {
		t.Fatalf("ops → vault: %v", err)
	}
	if err := ops.NotFound("x"); apperr.CodeOf(err) != apperr.CodeNotFound {
		t.Fatalf("not found: %v", err)
	}

	// non-main sandbox: a group session is sandboxed and sees only what it
	// spawned; its "not found" does not say whether the key exists.
	grp := NewAccess(cfg, "agent:main:telegram:group:42", "", false)
	if !grp.Req.Sandboxed || !grp.Req.Restrict {
		t.Fatalf("group requester: %+v", grp.Req)
	}
	if grp.SeesSpawnedBy("") || grp.SeesSpawnedBy("agent:main:main") || !grp.SeesSpawnedBy("agent:main:telegram:group:42") {
		t.Fatal("group requester: spawnedBy restriction")
	}
	if err := grp.CheckTarget("main", "", "main", ""); apperr.CodeOf(err) != apperr.CodeForbidden || err.Error() != grp.NotFound("main").Error() {
		t.Fatalf("sandboxed → main: %v", err)
	}
	if err := grp.NotFound("x"); apperr.CodeOf(err) != apperr.CodeForbidden {
		t.Fatalf("sandboxed not found: %v", err)
	}
	if err := grp.CheckLabelAgent("ops", policy.OpHistory); apperr.CodeOf(err) != apperr.CodeForbidden {
		t.Fatalf("sandboxed label lookup in another agent: %v", err)
	}
	// a sub-agent is never restricted to its own children
	if sub := NewAccess(cfg, "agent:main:subagent:x", "", false); sub.Req.Restrict || !sub.Req.Subagent {
		t.Fatalf("sub-agent: %+v", sub.Req)
	}
}
