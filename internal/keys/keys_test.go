package keys

import (
	"reflect"
	"strings"
	"testing"
)

func norm(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, agent, rest string
		ok              bool
	}{
		{"agent:main:main", "main", "main", true},
		{" agent:Ops:signal:group:abc ", "Ops", "signal:group:abc", true},
		{"agent::main::main", "main", "main", true}, // empty segments dropped
		{"agent:main", "", "", false},
		{"Agent:main:main", "", "", false}, // "agent" is case-sensitive
		{"main", "", "", false},
		{"hook:x", "", "", false},
		{"", "", "", false},
	} {
		a, r, ok := Parse(tc.in)
		if a != tc.agent || r != tc.rest || ok != tc.ok {
			t.Errorf("Parse(%q) = %q,%q,%v; want %q,%q,%v", tc.in, a, r, ok, tc.agent, tc.rest, tc.ok)
		}
	}
}

func TestKind(t *testing.T) {
	for _, tc := range []struct{ key, chatType, want string }{
		{"agent:main:main", "", "main"},
		{"main", "", "main"},
		{"agent:main:cron:9ebf", "", "cron"},
		{"cron:9ebf", "", "cron"},
		{"agent:main:hook:github:push-42", "", "hook"},
		{"hook:16499f8f", "", "hook"},
		{"node-abc", "", "node"},
		{"agent:main:node:abc", "", "node"},
		{"agent:main:signal:group:c2ln==", "", "group"},
		{"agent:main:discord:channel:123", "", "group"},
		{"agent:main:telegram:group:-100:topic:5", "", "group"},
		{"whatsapp:group:123@g.us", "", "group"},
		{"agent:main:signal:dm:+1555", "direct", "other"},
		{"agent:main:whatever", "group", "group"},
		{"agent:main:whatever", "Channel", "group"},
		{"agent:main:subagent:fc55", "", "other"},
		{"agent:main:MAIN", "", "main"},
	} {
		if got := Kind(tc.key, tc.chatType); got != tc.want {
			t.Errorf("Kind(%q,%q) = %q, want %q", tc.key, tc.chatType, got, tc.want)
		}
	}
}

func TestChannel(t *testing.T) {
	for _, tc := range []struct{ kind, key, ch, last, dc, want string }{
		{"group", "agent:main:signal:group:x", "signal", "", "", "signal"},
		{"group", "agent:main:signal:group:x", "", "", "", "signal"}, // from the key
		{"group", "agent:main:whatever", "", "telegram", "", "telegram"},
		{"cron", "agent:main:cron:1", "x", "y", "z", "internal"},
		{"hook", "hook:1", "", "", "", "internal"},
		{"node", "node-1", "", "", "", "internal"},
		{"main", "agent:main:main", "whatsapp", "signal", "telegram", "signal"}, // lastChannel wins over channel
		{"other", "agent:main:x", "", "", "telegram", "telegram"},
		{"other", "agent:main:x", "", " ", "", "unknown"},
	} {
		if got := Channel(tc.kind, tc.key, tc.ch, tc.last, tc.dc); got != tc.want {
			t.Errorf("Channel(%q,%q,%q,%q,%q) = %q, want %q", tc.kind, tc.key, tc.ch, tc.last, tc.dc, got, tc.want)
		}
	}
}

func TestCandidates(t *testing.T) {
	for _, tc := range []struct {
		raw, req, def string
		want          []string
	}{
		{"main", "ops", "main", []string{"agent:ops:main", "main"}},
		{"agent:Ops:main", "main", "main", []string{"agent:ops:main", "agent:Ops:main"}},
		{"hook:github:push-42", "main", "main", []string{"agent:main:hook:github:push-42", "hook:github:push-42"}},
		{"hook:X", "main", "work", []string{"agent:work:hook:X", "hook:X", "agent:work:hook:x"}},
		{"global", "main", "main", []string{"global"}},
		{"agent:main:signal:dm:+1", "ops", "main", []string{"agent:main:signal:dm:+1"}},
		{"  ", "main", "main", nil},
	} {
		if got := Candidates(tc.raw, tc.req, tc.def, norm); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Candidates(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

func TestDisplayAndSubagent(t *testing.T) {
	if got := Display("agent:ops:main", "ops", false); got != "main" {
		t.Errorf("own main = %q", got)
	}
	if got := Display("agent:ops:main", "main", false); got != "agent:ops:main" {
		t.Errorf("other agent's main = %q", got)
	}
	if got := Display("global", "main", true); got != "main" {
		t.Errorf("global scope = %q", got)
	}
	for k, want := range map[string]bool{
		"agent:main:subagent:1": true, "subagent:1": true, "agent:main:SubAgent:1": true,
		"agent:main:main": false, "agent:subagent:main": false,
	} {
		if IsSubagent(k) != want {
			t.Errorf("IsSubagent(%q) != %v", k, want)
		}
	}
}

func TestLooksLike(t *testing.T) {
	for v, want := range map[string]bool{
		"26a610b5-ea74-4c48-bd74-9be14f7f2944": true, "26A610B5-EA74-4C48-BD74-9BE14F7F2944": true,
		"26a610b5-ea74-4c48-bd74": false, "main": false,
	} {
		if LooksLikeSessionID(v) != want {
			t.Errorf("LooksLikeSessionID(%q) != %v", v, want)
		}
	}
	for v, want := range map[string]bool{
		"main": true, "global": true, "agent:x:y": true, "cron:1": true, "hook:1": true, "node-1": true,
		"x:group:1": true, "x:channel:1": true, "build-stats": false, "": false,
	} {
		if LooksLikeKey(v) != want {
			t.Errorf("LooksLikeKey(%q) != %v", v, want)
		}
	}
}
