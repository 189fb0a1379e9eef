package doctor

import (
	"strings"
	"testing"
	"time"
)

// Many sessions sharing a label: one finding, the message names five and
// counts the rest, the fix keeps the newest (a pipeline, not N commands).
func TestDuplicateLabelsMany(t *testing.T) {
	st := &StoreFact{Path: "/s/agents/main/sessions/sessions.json", Dir: "/s/agents/main/sessions"}
	for i := range 8 {
		st.Entries = append(st.Entries, EntryFact{Key: "agent:main:k" + string(rune('a'+i)), SessionID: "x", Label: "L", Exists: true, Transcript: "/t"})
	}
	fs := checkStore(AgentFacts{ID: "main", Store: st}, false)
	if len(fs) != 1 || fs[0].Check != "entry.duplicate-label" {
		t.Fatalf("%+v", fs)
	}
	if !strings.Contains(fs[0].Message, "on 8 sessions") || !strings.Contains(fs[0].Message, "and 3 more") {
		t.Errorf("message: %s", fs[0].Message)
	}
	want := `sessions --agent main list --limit 8 --jq '.sessions[] | select(.label == "L") | .key' | tail -n +2 | xargs -I{} sessions --agent main patch {} --clear-label`
	if fs[0].Fix != want {
		t.Errorf("fix:\n got %s\nwant %s", fs[0].Fix, want)
	}
}

// Lock classification: dead holder fixable, live holder info, a young lock
// without pid info (never "live pid 0"), a non-file error.
func TestCheckLocks(t *testing.T) {
	now := time.Now()
	snap := &Snapshot{Now: now, Locks: []LockFact{
		{Kind: "store", Path: "/a.lock", StorePath: "/a", PID: 999999999, Since: now.Add(-time.Minute), Stale: true},
		{Kind: "transcript", Path: "/b.jsonl.lock", PID: 42, Alive: true, Since: now.Add(-time.Second)},
		{Kind: "store", Path: "/c.lock", StorePath: "/c", Since: now},
		{Kind: "transcript", Path: "/d.jsonl.lock", Type: "fifo"},
		{Kind: "transcript", Path: "/e.jsonl.lock", PID: 43, Alive: true, Stale: true, Since: now.Add(-time.Hour)},
	}}
	got := map[string]Finding{}
	for _, f := range checkLocks(snap) {
		got[f.Path] = f
	}
	for path, want := range map[string]string{"/a.lock": "warning lock.dead true", "/b.jsonl.lock": "info lock.held false", "/c.lock": "info lock.held false", "/d.jsonl.lock": "error lock.not-a-file false", "/e.jsonl.lock": "warning lock.stale false"} {
		f := got[path]
		if s := f.Severity + " " + f.Check + " " + map[bool]string{true: "true", false: "false"}[f.Fixable]; s != want {
			t.Errorf("%s: %s, want %s (%s)", path, s, want, f.Message)
		}
	}
	if strings.Contains(got["/c.lock"].Message, "pid 0") {
		t.Errorf("a lock without pid reported as held by pid 0: %s", got["/c.lock"].Message)
	}
}
