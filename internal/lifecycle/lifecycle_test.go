package lifecycle

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/jsonx"
)

// ResetEntry keeps exactly the fields sessions.reset keeps, in its order,
// zeroes the counters and drops the rest (sessionFile, spawnedBy, channel…);
// an absent field stays absent (JSON.stringify drops undefined).
func TestResetEntry(t *testing.T) {
	old := jsonx.NewObject()
	if err := json.Unmarshal([]byte(`{"sessionId":"old","updatedAt":5,"sessionFile":"/x.jsonl","spawnedBy":"agent:main:main","label":"L","model":"m","totalTokens":900,"inputTokens":800,"outputTokens":100,"sendPolicy":"deny","origin":{"provider":"telegram"},"lastTo":"42","thinkingLevel":"high","channel":"telegram","systemSent":true}`), old); err != nil {
		t.Fatal(err)
	}
	now := time.UnixMilli(1767225600000)
	got, err := json.Marshal(ResetEntry(old, "new", now))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"sessionId":"new","updatedAt":1767225600000,"systemSent":false,"abortedLastRun":false,"thinkingLevel":"high","model":"m","sendPolicy":"deny","label":"L","origin":{"provider":"telegram"},"lastTo":"42","inputTokens":0,"outputTokens":0,"totalTokens":0}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

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
