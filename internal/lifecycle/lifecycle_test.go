package lifecycle

import (
	"testing"
)

func TestSelect(t *testing.T) {
	cands := []Candidate{
		{Key: "agent:main:main", Kind: "main", UpdatedAt: 1, Main: true},
		{Key: "cron:a", Kind: "cron", UpdatedAt: 1},
		{Key: "cron:b", Kind: "cron", UpdatedAt: 100},
		{Key: "hook:c", Kind: "hook", UpdatedAt: 99},
		{Key: "g", Kind: "group", UpdatedAt: 2},
	}
	chosen, mains := Select(cands, 100, []string{"cron", "hook", "main"})
	if len(chosen) != 2 || chosen[0].Key != "cron:a" || chosen[1].Key != "hook:c" {
		t.Fatalf("chosen %+v", chosen)
	}
	if len(mains) != 1 {
		t.Fatalf("mains %+v", mains)
	}
	chosen, _ = Select(cands, 100, nil)
	if len(chosen) != 3 {
		t.Fatalf("all kinds: %+v", chosen)
	}
}
