package transcripts_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcripts"
)

// TestOrphans: on the 1.30 fixture the one orphan is the Signal DM's first
// transcript (/new left it, nothing names it: no key). Attribute gives an
// orphan the key of the entry whose transcript's header names it as
// parentSession, a thread's parent key when that entry is a thread, and to
// an orphan named by an attributed orphan the same; FindOrphan finds it by
// its whole sessionId only.
func TestOrphans(t *testing.T) {
	dir := copyFixture(t, "state-2026.1.30")
	sess := filepath.Join(dir, "agents", "main", "sessions")
	const dmOrphan = "a62a3a2e-299a-4c9a-84ee-c16cbe885241"
	s := open(t, dir)
	a := mainAgent(t, s)
	os1 := a.Orphans(s)
	a.Attribute(s, os1)
	if len(os1) != 1 || os1[0].SessionID != dmOrphan || os1[0].Key != "" || os1[0].Path() != filepath.Join(sess, dmOrphan+".jsonl") {
		t.Fatalf("orphans: %+v", os1)
	}

	// a thread of the DM forked from a transcript that is now an orphan
	// (B), itself named by a later orphan (C) whose header names the DM's
	// first transcript: all three belonged to the DM.
	header := func(id, parent string) string {
		return `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-11-21T04:00:00.000Z","cwd":"/","parentSession":"/elsewhere/` + parent + `.jsonl"}` + "\n"
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(sess, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const b, c = "bbbbbbbb-0000-4000-8000-000000000001", "cccccccc-0000-4000-8000-000000000002"
	write(b+".jsonl", header(b, dmOrphan))
	write(c+".jsonl", header(c, b))
	store := filepath.Join(sess, "sessions.json")
	raw, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	thread := `"agent:main:signal:dm:+15551230001:thread:42":{"sessionId":"dddddddd-0000-4000-8000-000000000003","updatedAt":1795236250000},`
	if err := os.WriteFile(store, append([]byte("{"+thread), raw[1:]...), 0o600); err != nil {
		t.Fatal(err)
	}
	write("dddddddd-0000-4000-8000-000000000003.jsonl", header("dddddddd-0000-4000-8000-000000000003", c))
	s = open(t, dir)
	a = mainAgent(t, s)
	os2 := a.Orphans(s)
	for _, o := range os2 {
		if o.Key != "" {
			t.Errorf("Orphans read a header: %+v", o)
		}
	}
	a.Attribute(s, os2)
	keys := map[string]string{}
	for _, o := range os2 {
		keys[o.SessionID] = o.Key
	}
	const dm = "agent:main:signal:dm:+15551230001"
	if len(keys) != 3 || keys[dmOrphan] != dm || keys[b] != dm || keys[c] != dm {
		t.Fatalf("keys: %v", keys)
	}

	o, err := transcripts.FindOrphan(s, c)
	if err != nil || o == nil || o.Agent != "main" || o.Key != dm || o.SessionID != c {
		t.Fatalf("FindOrphan(%s) = %+v, %v", c, o, err)
	}
	for _, ref := range []string{c[:8], "c040fd20-0a1c-4ce0-924c-6e695a32eecb", "../" + c, "nope"} {
		if o, err := transcripts.FindOrphan(s, ref); o != nil || err != nil {
			t.Errorf("FindOrphan(%q) = %+v, %v", ref, o, err)
		}
	}
}

func mainAgent(t *testing.T, s *state.State) *transcripts.Agent {
	t.Helper()
	set, err := transcripts.Open(s, transcripts.Options{Agent: "main"})
	if err != nil {
		t.Fatal(err)
	}
	as := agents(t, set)
	if len(as) != 1 || as[0].Err != nil {
		t.Fatalf("agents: %+v", as)
	}
	return as[0]
}
