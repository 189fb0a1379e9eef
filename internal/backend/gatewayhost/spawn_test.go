package gatewayhost

import (
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/state"
)

// checkRemoteSpawn makes the local spawn's requester checks with a gateway
// host's config: no spawn from a sub-agent, allowAgents for another agent,
// the target agent's sub-agent model when none is asked for.
func TestCheckRemoteSpawn(t *testing.T) {
	cfg, err := config.FromJSON("/remote/openclaw.json", []byte(`{"agents":{"list":[
		{"id":"main","default":true,"subagents":{"model":"mock/sub"}},
		{"id":"ops","subagents":{"allowAgents":["main"]}},
		{"id":"vault"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	acc := func(as string) *state.Access {
		a := state.NewAccess(cfg, as, "", false)
		a.Remote = cfg
		return &a
	}
	cases := []struct {
		as, agent, model     string
		wantAgent, wantModel string
		forbidden            bool
	}{
		{as: "agent:ops:main", agent: "main", wantAgent: "main", wantModel: "mock/sub"},
		{as: "agent:ops:main", agent: "main", model: "x/y", wantAgent: "main", wantModel: "x/y"},
		{as: "agent:ops:main", wantAgent: "ops"},
		{as: "agent:ops:main", agent: "vault", forbidden: true},
		{as: "agent:main:main", agent: "ops", forbidden: true},
		{as: "agent:main:subagent:c1", forbidden: true},
	}
	for _, c := range cases {
		agent, model, err := checkRemoteSpawn(acc(c.as), c.agent, c.model)
		if c.forbidden {
			if apperr.CodeOf(err) != apperr.CodeForbidden {
				t.Errorf("%s --agent %q: err %v, want forbidden", c.as, c.agent, err)
			}
			continue
		}
		if err != nil || agent != c.wantAgent || model != c.wantModel {
			t.Errorf("%s --agent %q --model %q: %q %q %v, want %q %q", c.as, c.agent, c.model, agent, model, err, c.wantAgent, c.wantModel)
		}
	}
}
