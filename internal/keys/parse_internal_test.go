package keys

import (
	"strings"
	"testing"
)

// FuzzParseIsItsDefinition: Parse's cut of the usual key answers what the
// split of its definition answers, and isGroupRest what its test of
// ":"+rest did, for any key.
func FuzzParseIsItsDefinition(f *testing.F) {
	for _, k := range []string{
		"agent:main:main", "agent:main", "agent:", "agent::main:x", "agent:main::x", "agent:main:x:", " agent:a:b ",
		"agent:a:b:c:d", ":agent:a:b", "agent:a: b", "agent:a:b\t", "Agent:a:b", "agent:\xff:b", "agentx:a:b",
		"group:1", "discord:group:1", "discord:channel:1:topic:2", "xgroup:1", "a:groups:1", ":channel:", "",
	} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		id, rest, ok := Parse(key)
		id2, rest2, ok2 := parseSplit(strings.TrimSpace(key))
		if id != id2 || rest != rest2 || ok != ok2 {
			t.Fatalf("Parse(%q) = %q, %q, %v; by its definition %q, %q, %v", key, id, rest, ok, id2, rest2, ok2)
		}
		r := ":" + key
		if want := strings.Contains(r, ":group:") || strings.Contains(r, ":channel:"); isGroupRest(key) != want {
			t.Fatalf("isGroupRest(%q) = %v, want %v", key, !want, want)
		}
	})
}
