package config

import (
	"slices"
	"testing"
)

func TestFromJSONShapes(t *testing.T) {
	// 2026.1.30: agents.list, the default marked.
	c, err := FromJSON("gw", []byte(`{"agents":{"list":[{"id":"ops"},{"id":"main","default":true}]},"tools":{"agentToAgent":{"enabled":true,"allow":["ops"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.AgentIDs(); !slices.Equal(got, []string{"ops", "main"}) || c.DefaultAgentID() != "main" || !c.Tools.AgentToAgent.Enabled {
		t.Fatalf("1.30 shape: agents %v default %q a2a %+v", got, c.DefaultAgentID(), c.Tools.AgentToAgent)
	}
	// 2026.9: agents.entries in the config's order, the default named by
	// defaults.systemAgent.agentId.
	c, err = FromJSON("gw", []byte(`{"agents":{"defaults":{"systemAgent":{"agentId":"main"},"sandbox":{"mode":"all"}},"entries":{"zeta":{"name":"Z"},"main":{"name":"Main"},"ops":{}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.AgentIDs(); !slices.Equal(got, []string{"zeta", "main", "ops"}) || c.DefaultAgentID() != "main" || c.Agent("zeta").Name != "Z" || c.Defaults.Sandbox.Mode != "all" {
		t.Fatalf("9.x shape: agents %v default %q", got, c.DefaultAgentID())
	}
	// No agents at all: the default agent is main.
	if c, err = FromJSON("gw", []byte(`null`)); err != nil || c.DefaultAgentID() != "main" {
		t.Fatalf("empty: %v %q", err, c.DefaultAgentID())
	}
	if _, err = FromJSON("gw", []byte(`[1]`)); err == nil {
		t.Fatal("a non-object config was accepted")
	}
}
