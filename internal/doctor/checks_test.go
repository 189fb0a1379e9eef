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

// sqlite.schema by version: 23 nothing; 24 (a newer OpenClaw's store, read
// completely) info; newer than 24 a warning; both advise the gateway and
// never openclaw doctor --fix, which only migrates older stores — the one
// case it is the fix for.
func TestSQLiteSchemaAdvice(t *testing.T) {
	for _, c := range []struct {
		version  int
		sev      string
		fix      []string
		notInFix string
	}{
		{23, "", nil, ""},
		{24, SevInfo, []string{"running OpenClaw gateway"}, "doctor"},
		{25, SevWarning, []string{"running OpenClaw gateway", "newer sessions"}, "doctor"},
		{30, SevWarning, []string{"running OpenClaw gateway", "newer sessions"}, "doctor"},
		{22, SevWarning, []string{"openclaw doctor --fix"}, "gateway"},
	} {
		fs := checkSQLite(AgentFacts{ID: "main", SQLite: &SQLiteFact{Path: "/s/a.sqlite", UserVersion: c.version, QuickCheck: "ok"}}, Limits{})
		var got []Finding
		for _, f := range fs {
			if f.Check == "sqlite.schema" {
				got = append(got, f)
			}
		}
		if c.sev == "" {
			if len(got) != 0 {
				t.Errorf("schema %d: %+v", c.version, got)
			}
			continue
		}
		if len(got) != 1 || got[0].Severity != c.sev || got[0].Fixable {
			t.Fatalf("schema %d: %+v, want one %s", c.version, got, c.sev)
		}
		for _, s := range c.fix {
			if !strings.Contains(got[0].Fix, s) {
				t.Errorf("schema %d: fix %q lacks %q", c.version, got[0].Fix, s)
			}
		}
		if strings.Contains(got[0].Fix, c.notInFix) {
			t.Errorf("schema %d: fix %q names %q", c.version, got[0].Fix, c.notInFix)
		}
		if !strings.Contains(got[0].Message, "schema version ") {
			t.Errorf("schema %d: message %q", c.version, got[0].Message)
		}
	}
}
