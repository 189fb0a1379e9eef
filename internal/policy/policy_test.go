package policy

import (
	"strings"
	"testing"
)

func norm(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func TestA2A(t *testing.T) {
	for _, tc := range []struct {
		name     string
		p        A2A
		req, tgt string
		want     bool
	}{
		{"same agent always", A2A{}, "main", "main", true},
		{"disabled", A2A{Allow: []string{"*"}}, "main", "ops", false},
		{"enabled, no allow list", A2A{Enabled: true}, "main", "ops", true},
		{"star", A2A{Enabled: true, Allow: []string{"*"}}, "main", "ops", true},
		{"exact both", A2A{Enabled: true, Allow: []string{"main", "ops"}}, "main", "ops", true},
		{"exact one missing", A2A{Enabled: true, Allow: []string{"main"}}, "main", "ops", false},
		{"exact is case-sensitive", A2A{Enabled: true, Allow: []string{"Main", "ops"}}, "main", "ops", false},
		{"wildcard case-insensitive", A2A{Enabled: true, Allow: []string{"M*", "O?S*", "o*"}}, "main", "ops", true},
		{"wildcard anchored", A2A{Enabled: true, Allow: []string{"ai*", "ops"}}, "main", "ops", false},
		{"regex metachars escaped", A2A{Enabled: true, Allow: []string{"m.in*", "ops"}}, "main", "ops", false},
		{"blank patterns ignored", A2A{Enabled: true, Allow: []string{" ", "main", "ops"}}, "main", "ops", true},
		{"trimmed patterns", A2A{Enabled: true, Allow: []string{" main ", " ops"}}, "main", "ops", true},
	} {
		if got := tc.p.Allowed(tc.req, tc.tgt); got != tc.want {
			t.Errorf("%s: Allowed(%q,%q) = %v, want %v", tc.name, tc.req, tc.tgt, got, tc.want)
		}
	}
	if m := (A2A{}).Check(OpHistory, "a", "b"); m != MsgHistoryA2ADisabled {
		t.Errorf("history disabled message = %q", m)
	}
	if m := (A2A{}).Check(OpSend, "a", "b"); m != MsgSendA2ADisabled {
		t.Errorf("send disabled message = %q", m)
	}
	if m := (A2A{Enabled: true, Allow: []string{"a"}}).Check(OpSend, "a", "b"); m != MsgSendA2ADenied {
		t.Errorf("send denied message = %q", m)
	}
	if m := (A2A{Enabled: true, Allow: []string{"a"}}).Check(OpHistory, "a", "b"); m != MsgHistoryA2ADenied {
		t.Errorf("history denied message = %q", m)
	}
}

func TestSend(t *testing.T) {
	rules := func(r ...SendRule) *SendConfig { return &SendConfig{Rules: r} }
	for _, tc := range []struct {
		name string
		cfg  *SendConfig
		in   SendInput
		want string
	}{
		{"nothing configured", nil, SendInput{Key: "agent:main:main"}, "allow"},
		{"entry override deny", nil, SendInput{Key: "k", EntryPolicy: " DENY "}, "deny"},
		{"entry override beats rules", rules(SendRule{Action: "deny"}), SendInput{Key: "k", EntryPolicy: "allow"}, "allow"},
		{"bogus entry override ignored", &SendConfig{Default: "deny"}, SendInput{Key: "k", EntryPolicy: "maybe"}, "deny"},
		{"default deny", &SendConfig{Default: "deny"}, SendInput{Key: "k"}, "deny"},
		{"rule without match matches all", rules(SendRule{Action: "deny"}), SendInput{Key: "k"}, "deny"},
		{"channel rule from entry channel", rules(SendRule{Action: "deny", Channel: "Discord"}), SendInput{Key: "k", EntryChannel: "discord"}, "deny"},
		{"channel rule no match", rules(SendRule{Action: "deny", Channel: "discord"}), SendInput{Key: "k", LastChannel: "signal"}, "allow"},
		{"explicit channel wins", rules(SendRule{Action: "deny", Channel: "discord"}), SendInput{Key: "k", Channel: "signal", EntryChannel: "discord"}, "allow"},
		{"channel from un-prefixed key", rules(SendRule{Action: "deny", Channel: "discord"}), SendInput{Key: "discord:group:1"}, "deny"},
		{"agent-prefixed key never names a channel", rules(SendRule{Action: "deny", Channel: "discord"}), SendInput{Key: "agent:main:discord:group:1"}, "allow"},
		{"chatType from entry", rules(SendRule{Action: "deny", ChatType: "direct"}), SendInput{Key: "k", ChatType: "dm"}, "deny"},
		{"chatType from key", rules(SendRule{Action: "deny", ChatType: "group"}), SendInput{Key: "agent:main:signal:group:x"}, "deny"},
		{"chatType channel from key", rules(SendRule{Action: "deny", ChatType: "channel"}), SendInput{Key: "agent:main:slack:channel:x"}, "deny"},
		{"keyPrefix lowercased", rules(SendRule{Action: "deny", KeyPrefix: " AGENT:MAIN:CRON: "}), SendInput{Key: "agent:main:cron:1"}, "deny"},
		{"keyPrefix key not lowercased", rules(SendRule{Action: "deny", KeyPrefix: "agent:main:cron:"}), SendInput{Key: "Agent:main:cron:1"}, "allow"},
		{"deny wins over earlier allow", rules(SendRule{Action: "allow"}, SendRule{Action: "deny", KeyPrefix: "agent:"}), SendInput{Key: "agent:x:y"}, "deny"},
		{"allow match beats default deny", &SendConfig{Default: "deny", Rules: []SendRule{{Action: "allow", KeyPrefix: "agent:main:"}}}, SendInput{Key: "agent:main:x"}, "allow"},
		{"no allow match falls to default", &SendConfig{Default: "deny", Rules: []SendRule{{Action: "allow", KeyPrefix: "agent:ops:"}}}, SendInput{Key: "agent:main:x"}, "deny"},
		{"missing action means allow", &SendConfig{Default: "deny", Rules: []SendRule{{KeyPrefix: "agent:"}}}, SendInput{Key: "agent:main:x"}, "allow"},
		{"bogus default is allow", &SendConfig{Default: "nah"}, SendInput{Key: "k"}, "allow"},
	} {
		if got := Send(tc.cfg, tc.in); got != tc.want {
			t.Errorf("%s: Send = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSandbox(t *testing.T) {
	const req, main = "agent:main:telegram:group:1", "agent:main:main"
	for _, tc := range []struct {
		name       string
		s          Sandbox
		key        string
		sub        bool
		sandboxed  bool
		restricted bool
	}{
		{"operator never", Sandbox{Flag: true}, "", false, true, false},
		{"flag", Sandbox{Flag: true}, req, false, true, true},
		{"flag, visibility all", Sandbox{Flag: true, Visibility: "all"}, req, false, true, false},
		{"flag, sub-agent", Sandbox{Flag: true}, "agent:main:subagent:1", true, true, false},
		{"mode all", Sandbox{Mode: "all"}, main, false, true, true},
		{"mode non-main, main", Sandbox{Mode: "non-main"}, main, false, false, false},
		{"mode non-main, other", Sandbox{Mode: "non-main"}, req, false, true, true},
		{"mode off", Sandbox{Mode: "off"}, req, false, false, false},
	} {
		if got := tc.s.Sandboxed(tc.key, main); got != tc.sandboxed && tc.key != "" {
			t.Errorf("%s: Sandboxed = %v", tc.name, got)
		}
		if got := tc.s.RestrictToSpawned(tc.key, main, tc.sub); got != tc.restricted {
			t.Errorf("%s: RestrictToSpawned = %v, want %v", tc.name, got, tc.restricted)
		}
	}
}

func TestSpawnTarget(t *testing.T) {
	for _, tc := range []struct {
		allow       []string
		req, target string
		want        string
	}{
		{nil, "main", "main", ""},
		{nil, "main", "ops", "agentId is not allowed for sessions_spawn (allowed: none)"},
		{[]string{"*"}, "main", "ops", ""},
		{[]string{" * "}, "main", "ops", ""},
		{[]string{"Ops"}, "main", "ops", ""},
		{[]string{"research", "Dev Team"}, "main", "ops", "agentId is not allowed for sessions_spawn (allowed: research, dev-team)"},
		{[]string{"", "  "}, "main", "ops", "agentId is not allowed for sessions_spawn (allowed: none)"},
	} {
		n := func(s string) string { return strings.ReplaceAll(norm(s), " ", "-") }
		if got := SpawnTarget(tc.allow, tc.req, tc.target, n); got != tc.want {
			t.Errorf("SpawnTarget(%q,%q,%q) = %q, want %q", tc.allow, tc.req, tc.target, got, tc.want)
		}
	}
}
