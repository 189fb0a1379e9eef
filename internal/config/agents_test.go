package config

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

func TestNormalizeAgentID(t *testing.T) {
	a63 := strings.Repeat("a", 63)
	tests := []struct{ in, want string }{
		{"", "main"},
		{"   ", "main"},
		{"\t\n", "main"},
		{"main", "main"},
		{"Main", "main"},
		{"  Ops  ", "ops"},
		{"OPS_2-x", "ops_2-x"},
		{"0day", "0day"},
		{"_a", "_a"},   // invalid (leading "_") but only dashes are stripped
		{"-a", "a"},    // leading dash stripped
		{"a-", "a-"},   // valid as is: trailing dash kept
		{"a--", "a--"}, // same
		{"a b", "a-b"},
		{"Foo Bar!", "foo-bar"},
		{"a  /  b", "a-b"}, // one dash per run
		{"--x--", "x"},
		{"a/b", "a-b"},
		{"!!!", "main"},
		{"---", "main"},
		{"héllo", "h-llo"},
		{"日本", "main"},
		{"agent😀1", "agent-1"},
		{"İd", "i-d"},             // JS lowers U+0130 to "i" + U+0307
		{"\u212Aelvin", "kelvin"}, // KELVIN SIGN lowers to ASCII k
		{"\ufeffops\u00a0", "ops"},
		{"\u0085ops", "ops"}, // NEL is not trimmed by JS but becomes a stripped dash
		{"ops\u0085x", "ops-x"},
		{"bad\xffutf8", "bad-utf8"},
		{strings.Repeat("A", 64), strings.Repeat("a", 64)},
		{strings.Repeat("b", 65), strings.Repeat("b", 64)}, // too long for the fast path: sliced
		{"-" + a63 + "--b", a63 + "-"},                     // quirk: sliced after the dash strip, ends with "-"
		{"x y" + strings.Repeat("z", 70), "x-y" + strings.Repeat("z", 61)},
	}
	for _, tt := range tests {
		if got := NormalizeAgentID(tt.in); got != tt.want {
			t.Errorf("NormalizeAgentID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Only U+0130 and U+212A lower-case to ASCII in Go; jsLower handles the one
// whose JavaScript mapping differs. Guard against Unicode table changes.
func TestLowerToASCIIRunes(t *testing.T) {
	var got []rune
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if unicode.ToLower(r) < 0x80 {
			got = append(got, r)
		}
	}
	if !reflect.DeepEqual(got, []rune{0x130, 0x212A}) {
		t.Errorf("runes lowering to ASCII: %U", got)
	}
}

func TestDefaultAgentIDAndAgentIDs(t *testing.T) {
	env := fakeEnv("/h", "/", nil)
	tests := []struct {
		name    string
		content string
		def     string
		ids     []string
	}{
		{"no agents key", `{}`, "main", []string{"main"}},
		{"empty list", `{agents: {list: []}}`, "main", []string{"main"}},
		{"only non-objects", `{agents: {list: [null, 1, "x"]}}`, "main", []string{"main"}},
		{"first when none default", `{agents: {list: [{id: "B"}, {id: "a"}]}}`, "b", []string{"b", "a"}},
		{"first default true", `{agents: {list: [{id: "a"}, {id: "b", default: true}, {id: "c", default: true}]}}`, "b", []string{"a", "b", "c"}},
		{"truthy default string", `{agents: {list: [{id: "a"}, {id: "b", default: "yes"}]}}`, "b", []string{"a", "b"}},
		{"falsy defaults", `{agents: {list: [{id: "a", default: 0}, {id: "b", default: ""}, {id: "c", default: false}, {id: "d", default: null}]}}`, "a", []string{"a", "b", "c", "d"}},
		{"object default is truthy", `{agents: {list: [{id: "a"}, {id: "b", default: {}}]}}`, "b", []string{"a", "b"}},
		{"missing id is main", `{agents: {list: [{name: "x"}, {id: "ops"}]}}`, "main", []string{"main", "ops"}},
		{"blank id is main", `{agents: {list: [{id: "  ", default: true}]}}`, "main", []string{"main"}},
		{"normalised and de-duplicated", `{agents: {list: [{id: " Ops "}, {id: "ops"}, {id: "OPS"}, {id: "x y"}]}}`, "ops", []string{"ops", "x-y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustLoad(t, tt.content, env)
			if got := cfg.DefaultAgentID(); got != tt.def {
				t.Errorf("DefaultAgentID = %q, want %q", got, tt.def)
			}
			if got := cfg.AgentIDs(); !reflect.DeepEqual(got, tt.ids) {
				t.Errorf("AgentIDs = %v, want %v", got, tt.ids)
			}
		})
	}
	var nilCfg *Config
	if nilCfg.DefaultAgentID() != "main" || !reflect.DeepEqual(nilCfg.AgentIDs(), []string{"main"}) || nilCfg.Agent("main") != nil {
		t.Error("nil config helpers")
	}
}

func TestAgentLookup(t *testing.T) {
	cfg := mustLoad(t, `{agents: {list: [{id: "Ops", name: "first"}, {id: "ops", name: "second"}, {id: "main"}]}}`, fakeEnv("/h", "/", nil))
	if a := cfg.Agent(" OPS "); a == nil || a.Name != "first" {
		t.Errorf("Agent(OPS) = %+v", a)
	}
	if a := cfg.Agent(""); a == nil || a.ID != "main" {
		t.Errorf("Agent(\"\") = %+v", a)
	}
	if a := cfg.Agent("nope"); a != nil {
		t.Errorf("Agent(nope) = %+v", a)
	}
}

func TestStorePath(t *testing.T) {
	home, cwd := "/home/u", "/work"
	env := fakeEnv(home, cwd, nil)
	tests := []struct {
		store, agent string
		want         string
		shared       bool
	}{
		{"", "ops", "/st/agents/ops/sessions/sessions.json", false},
		{"", "", "/st/agents/main/sessions/sessions.json", false},
		{"", " Ops Team ", "/st/agents/ops-team/sessions/sessions.json", false},
		{"   ", "ops", "/st/agents/ops/sessions/sessions.json", false},
		{"~/s/{agentId}/sessions.json", "Ops", "/home/u/s/ops/sessions.json", false},
		{"/data/{agentId}-{agentId}.json", "", "/data/main-main.json", false},
		{"rel/{agentId}.json", "a", "/work/rel/a.json", false},
		{"~/shared/sessions.json", "ops", "/home/u/shared/sessions.json", true},
		{" /abs/store.json ", "x", "/abs/store.json", true},
		{"shared.json", "x", "/work/shared.json", true},
		{"~user/{agentId}.json", "a", "/work/~user/a.json", false},
	}
	for _, tt := range tests {
		cfg := &Config{Session: Session{Store: tt.store}}
		got, shared := cfg.StorePath("/st", tt.agent, env)
		if got != tt.want || shared != tt.shared {
			t.Errorf("store %q agent %q: got (%s, %v), want (%s, %v)", tt.store, tt.agent, got, shared, tt.want, tt.shared)
		}
	}
	var nilCfg *Config
	if got, _ := nilCfg.StorePath("/st", "a", env); got != "/st/agents/a/sessions/sessions.json" {
		t.Errorf("nil config StorePath = %s", got)
	}
	if got := SessionsDir("/st", "X"); got != "/st/agents/x/sessions" {
		t.Errorf("SessionsDir = %s", got)
	}
}

func TestModelFor(t *testing.T) {
	env := fakeEnv("/h", "/", nil)
	cfg := mustLoad(t, `{
		agents: {
			defaults: {
				model: {primary: "anthropic/claude-opus-4-5", fallbacks: ["openai/gpt-5"]},
				models: {"openai/gpt-5": {alias: " GPT "}, "mock/m1": {alias: "fast"}, "x/y": null},
				subagents: {model: {primary: "mock/sub"}},
			},
			list: [
				{id: "main"},
				{id: "ops", model: "mock/mock-2", subagents: {model: "mock/opsub"}},
				{id: "alias", model: "gpt"},
				{id: "alias2", model: {primary: "FAST"}},
				{id: "bare", model: "sonnet"},
				{id: "nested", model: "openrouter/meta/llama"},
				{id: "spaces", model: " p / m "},
				{id: "blank", model: "  "},
				{id: "fallbackonly", model: {fallbacks: ["a/b"]}},
			],
		},
	}`, env)
	tests := []struct{ agent, provider, model string }{
		{"main", "anthropic", "claude-opus-4-5"},
		{"unknown", "anthropic", "claude-opus-4-5"},
		{"ops", "mock", "mock-2"},
		{"alias", "openai", "gpt-5"},
		{"alias2", "mock", "m1"},
		{"bare", "", "sonnet"},
		{"nested", "openrouter", "meta/llama"},
		{"spaces", "p", "m"},
		{"blank", "anthropic", "claude-opus-4-5"},
		{"fallbackonly", "anthropic", "claude-opus-4-5"},
	}
	for _, tt := range tests {
		if p, m := cfg.ModelFor(tt.agent); p != tt.provider || m != tt.model {
			t.Errorf("ModelFor(%s) = %q %q, want %q %q", tt.agent, p, m, tt.provider, tt.model)
		}
	}
	if got := cfg.SubagentModelFor("ops"); got != "mock/opsub" {
		t.Errorf("SubagentModelFor(ops) = %s", got)
	}
	if got := cfg.SubagentModelFor("main"); got != "mock/sub" {
		t.Errorf("SubagentModelFor(main) = %s", got)
	}
	if p, m := cfg.ResolveModel(""); p != "" || m != "" {
		t.Errorf("ResolveModel(\"\") = %q %q", p, m)
	}
	if p, m := cfg.ResolveModel("p/"); p != "p" || m != "" {
		t.Errorf("ResolveModel(p/) = %q %q", p, m)
	}

	empty := mustLoad(t, `{}`, env)
	if p, m := empty.ModelFor("main"); p != "" || m != "" {
		t.Errorf("no model configured: %q %q", p, m)
	}
	if empty.SubagentModelFor("main") != "" {
		t.Error("SubagentModelFor on empty config")
	}
	var nilCfg *Config
	if p, m := nilCfg.ModelFor("x"); p != "" || m != "" || nilCfg.SubagentModelFor("x") != "" {
		t.Error("nil config ModelFor")
	}
	if p, m := nilCfg.ResolveModel("a/b"); p != "a" || m != "b" {
		t.Error("nil config ResolveModel")
	}
}

func TestPingPongTurns(t *testing.T) {
	tests := []struct {
		v    *float64
		want int
	}{
		{nil, 5}, {f64(0), 0}, {f64(-1), 0}, {f64(2.7), 2}, {f64(5), 5}, {f64(9), 5},
		{f64(-0.5), 0}, {f64(math.Inf(1)), 5}, {f64(math.NaN()), 5},
	}
	for _, tt := range tests {
		cfg := &Config{}
		cfg.Session.AgentToAgent.MaxPingPongTurns = tt.v
		if got := cfg.PingPongTurns(); got != tt.want {
			t.Errorf("PingPongTurns(%v) = %d, want %d", tt.v, got, tt.want)
		}
	}
	var nilCfg *Config
	if nilCfg.PingPongTurns() != 5 {
		t.Error("nil config")
	}
	// Wrong type in the file reads as unset.
	cfg := mustLoad(t, `{session: {agentToAgent: {maxPingPongTurns: "2"}}}`, fakeEnv("/h", "/", nil))
	if cfg.PingPongTurns() != 5 {
		t.Errorf("string value: %d", cfg.PingPongTurns())
	}
}

func TestArchiveAfterMinutes(t *testing.T) {
	tests := []struct {
		v    *float64
		want int
	}{
		{nil, 60}, {f64(0), 0}, {f64(-5), 0}, {f64(0.5), 1}, {f64(1), 1}, {f64(90.9), 90},
		{f64(math.Inf(1)), 0}, {f64(math.NaN()), 0}, {f64(1e300), math.MaxInt32},
	}
	for _, tt := range tests {
		cfg := &Config{}
		cfg.Defaults.Subagents.ArchiveAfterMinutes = tt.v
		if got := cfg.ArchiveAfterMinutes(); got != tt.want {
			t.Errorf("ArchiveAfterMinutes(%v) = %d, want %d", tt.v, got, tt.want)
		}
	}
	var nilCfg *Config
	if nilCfg.ArchiveAfterMinutes() != 60 {
		t.Error("nil config")
	}
	// Infinity in the file is sanitised to null, i.e. unset.
	cfg := mustLoad(t, `{agents: {defaults: {subagents: {archiveAfterMinutes: Infinity}}}}`, fakeEnv("/h", "/", nil))
	if cfg.ArchiveAfterMinutes() != 60 {
		t.Errorf("Infinity in file: %d", cfg.ArchiveAfterMinutes())
	}
}

func TestJSTruthy(t *testing.T) {
	truthy := []any{true, 1.0, -1.0, "x", " ", map[string]any{}, []any{}}
	falsy := []any{nil, false, 0.0, ""}
	for _, v := range truthy {
		if !jsTruthy(v) {
			t.Errorf("jsTruthy(%#v) = false", v)
		}
	}
	for _, v := range falsy {
		if jsTruthy(v) {
			t.Errorf("jsTruthy(%#v) = true", v)
		}
	}
}
