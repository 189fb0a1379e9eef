package hostread

import (
	"slices"
	"testing"

	srch "github.com/openclaw/sessions/internal/search"
)

// TestIndexFor: when a search asks the index (not with --no-index,
// $SESSIONS_NO_INDEX, nor for a words or ranked query) and who a build it
// starts in the background runs as: the operator (told at the terminal),
// an agent (--as, and --sandboxed when it is; told to no one), the
// operator's --redact; none with $SESSIONS_INDEX_BACKGROUND=0.
func TestIndexFor(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	notice := func(string) {}
	lit := srch.Query{Pattern: "x"}
	for _, c := range []struct {
		name    string
		ask     IndexAsk
		index   bool
		build   bool
		flags   []string
		noticed bool
	}{
		{"the operator", IndexAsk{Pattern: lit, Getenv: env(), Notice: notice}, true, true, nil, true},
		{"--no-index", IndexAsk{Pattern: lit, NoIndex: true, Getenv: env()}, false, false, nil, false},
		{"$SESSIONS_NO_INDEX", IndexAsk{Pattern: lit, Getenv: env(NoIndexEnv, "true")}, false, false, nil, false},
		{"$SESSIONS_NO_INDEX=0", IndexAsk{Pattern: lit, Getenv: env(NoIndexEnv, "0"), Notice: notice}, true, true, nil, true},
		{"words", IndexAsk{Pattern: srch.Query{Pattern: "a b", Words: true}, Getenv: env()}, false, false, nil, false},
		{"ranked", IndexAsk{Pattern: lit, Relevance: true, Getenv: env()}, false, false, nil, false},
		{"no background", IndexAsk{Pattern: lit, Getenv: env(IndexBackgroundEnv, "0"), Notice: notice}, true, false, nil, false},
		{"an agent", IndexAsk{Pattern: lit, Getenv: env(), Requester: "agent:main:main", Notice: notice}, true, true, []string{"--as", "agent:main:main"}, false},
		{"a sandboxed agent", IndexAsk{Pattern: lit, Getenv: env(), Requester: "agent:main:main", Sandboxed: true, Notice: notice}, true, true,
			[]string{"--as", "agent:main:main", "--sandboxed"}, false},
		{"--redact", IndexAsk{Pattern: lit, Getenv: env(), Redact: true, Notice: notice}, true, true, []string{"--redact"}, true},
		{"sandboxed operator", IndexAsk{Pattern: lit, Getenv: env(), Sandboxed: true, Notice: notice}, true, true, nil, true},
	} {
		x := IndexFor(c.ask)
		if (x != nil) != c.index {
			t.Errorf("%s: asks the index %v, want %v", c.name, x != nil, c.index)
			continue
		}
		if x == nil {
			continue
		}
		if (x.Build != nil) != c.build {
			t.Errorf("%s: builds in the background %v, want %v", c.name, x.Build != nil, c.build)
			continue
		}
		if x.Build != nil && (!slices.Equal(x.Build.Flags, c.flags) || (x.Build.Notice != nil) != c.noticed) {
			t.Errorf("%s: builder flags %q (told %v), want %q (told %v)", c.name, x.Build.Flags, x.Build.Notice != nil, c.flags, c.noticed)
		}
	}
	a, b := MaskKey([]string{"p"}, "agent:main:main", false), MaskKey([]string{"p"}, "agent:main:main", true)
	if a == b || a == MaskKey([]string{"p"}, "", false) || a == MaskKey([]string{"q"}, "agent:main:main", false) {
		t.Errorf("mask keys do not tell requesters, sandboxing or patterns apart: %q %q", a, b)
	}
}
