package cmdutil

import (
	"fmt"
	"strings"
	"testing"
)

// The word being completed filters before the cap, so an old session is
// still reachable by typing its prefix; the newest come first.
func TestFinishFiltersThenCaps(t *testing.T) {
	var cands []candidate
	for i := range 500 {
		cands = append(cands, candidate{value: fmt.Sprintf("agent:main:hook:%03d", i), at: int64(i), desc: "hook"})
	}
	cands = append(cands, candidate{value: "agent:main:old", at: -1})
	out := finish(cands, "")
	if len(out) != MaxCompletions {
		t.Fatalf("%d candidates, want the cap %d", len(out), MaxCompletions)
	}
	if out[0] != "agent:main:hook:499\thook" {
		t.Errorf("first = %q, want the newest", out[0])
	}
	out = finish(cands, "agent:main:o")
	if len(out) != 1 || out[0] != "agent:main:old" {
		t.Errorf("prefix of the oldest = %q", out)
	}
	out = finish(cands, "agent:main:hook:00")
	if len(out) != 10 || !strings.HasPrefix(out[0], "agent:main:hook:009") {
		t.Errorf("prefix = %q", out)
	}
}

func TestCompletionRequest(t *testing.T) {
	for args, want := range map[string]bool{
		"__complete history ": true, "__completeNoDesc list": true, "history __complete": false, "": false,
	} {
		if got := IsCompletionRequest(strings.Fields(args)); got != want {
			t.Errorf("IsCompletionRequest(%q) = %v", args, got)
		}
	}
}
