package transcripts_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/transcripts"
)

func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", name), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func open(t *testing.T, dir string) *state.State {
	t.Helper()
	s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Home: t.TempDir()}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func agents(t *testing.T, set *transcripts.Set) []*transcripts.Agent {
	t.Helper()
	var out []*transcripts.Agent
	for a := range set.All() {
		out = append(out, a)
	}
	return out
}

// TestJSONEra: the entries of the store, and of the sessions dir exactly the
// regular files that are transcripts — <sessionId>.jsonl (with or without an
// entry) and archived copies — by name; no link, no other file.
func TestJSONEra(t *testing.T) {
	dir := copyFixture(t, "state-2026.1.30")
	sess := filepath.Join(dir, "agents", "main", "sessions")
	write := func(name string) {
		if err := os.WriteFile(filepath.Join(sess, name), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("00000000-orphan.jsonl")
	write("dead.jsonl.deleted.2026-11-20T00-00-02.000Z")
	write("beef.jsonl.reset.2026-11-20T00-00-02.000Z.1.zst")
	write("notes.txt")
	write("x.jsonl.lock")
	if err := os.Symlink(filepath.Join(sess, "notes.txt"), filepath.Join(sess, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	s := open(t, dir)
	set, err := transcripts.Open(s, transcripts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	as := agents(t, set)
	if len(as) != 1 || as[0].ID != "main" || as[0].Era != era.JSON || as[0].Err != nil || as[0].DirErr != nil || as[0].SQLite() || as[0].DB != nil {
		t.Fatalf("agents: %+v", as)
	}
	a := as[0]
	_, entries, _ := s.Entries("main")
	if len(a.Entries) != len(entries) || len(a.Entries) == 0 {
		t.Fatalf("%d entries, the store has %d", len(a.Entries), len(entries))
	}
	var names []string
	for _, f := range a.Files {
		if f.Dir != sess || f.Path() != filepath.Join(sess, f.Name) {
			t.Fatalf("file %+v outside %s", f, sess)
		}
		names = append(names, f.Name)
	}
	if !slices.IsSorted(names) {
		t.Fatalf("not by name: %v", names)
	}
	for _, want := range []string{"00000000-orphan.jsonl", "dead.jsonl.deleted.2026-11-20T00-00-02.000Z", "beef.jsonl.reset.2026-11-20T00-00-02.000Z.1.zst", "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not listed: %v", want, names)
		}
	}
	for _, no := range []string{"notes.txt", "x.jsonl.lock", "link.jsonl", "sessions.json"} {
		if slices.Contains(names, no) {
			t.Errorf("%s listed: %v", no, names)
		}
	}
	for _, f := range a.Files {
		id, jsonl := f.JSONL()
		switch f.Name {
		case "dead.jsonl.deleted.2026-11-20T00-00-02.000Z":
			if jsonl || f.ArchiveOf() != "dead" || f.Zstd() {
				t.Errorf("%s: jsonl %v archive %q zstd %v", f.Name, jsonl, f.ArchiveOf(), f.Zstd())
			}
		case "beef.jsonl.reset.2026-11-20T00-00-02.000Z.1.zst":
			if jsonl || f.ArchiveOf() != "beef" || !f.Zstd() {
				t.Errorf("%s: jsonl %v archive %q zstd %v", f.Name, jsonl, f.ArchiveOf(), f.Zstd())
			}
		case "00000000-orphan.jsonl":
			if !jsonl || id != "00000000-orphan" || f.ArchiveOf() != "" {
				t.Errorf("%s: %q %v %q", f.Name, id, jsonl, f.ArchiveOf())
			}
		}
	}
}

// TestSQLiteEra: a 2026.8+ agent has its open store, its entries, and the
// files of its sessions dir and of the store's directory.
func TestSQLiteEra(t *testing.T) {
	dir := copyFixture(t, "state-2026.9.6")
	sess := filepath.Join(dir, "agents", "ops", "sessions")
	if err := os.MkdirAll(sess, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sess, "s1.jsonl.deleted.2026-11-20T00-00-02.000Z"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := open(t, dir)
	set, err := transcripts.Open(s, transcripts.Options{AllAgents: true, StoreArchives: true})
	if err != nil {
		t.Fatal(err)
	}
	if !set.Multi() {
		t.Fatalf("agents %v: want main and ops", set.IDs)
	}
	for _, a := range agents(t, set) {
		if a.Err != nil || a.Era != era.SQLite || !a.SQLite() || a.DB == nil || a.DB != s.SQLiteDB(a.ID) || a.ArchivesErr != nil {
			t.Fatalf("agent %s: %+v", a.ID, a)
		}
		if len(a.Entries) == 0 {
			t.Errorf("agent %s: no entries", a.ID)
		}
		if a.ID == "ops" && (len(a.Files) != 1 || a.Files[0].ArchiveOf() != "s1") {
			t.Errorf("ops files: %+v", a.Files)
		}
	}
	// Agent narrows the set to one agent.
	set, err = transcripts.Open(s, transcripts.Options{AllAgents: true, Agent: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	if as := agents(t, set); set.Multi() || len(as) != 1 || as[0].ID != "ops" || as[0].Archives != nil {
		t.Fatalf("narrowed: %v", set.IDs)
	}
}

// TestUnreadable: a store that cannot be read is the agent's Err, a sessions
// dir that cannot be listed its DirErr.
func TestUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	dir := copyFixture(t, "state-2026.1.30")
	sess := filepath.Join(dir, "agents", "main", "sessions")
	if err := os.WriteFile(filepath.Join(sess, "sessions.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := open(t, dir)
	set, err := transcripts.Open(s, transcripts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := agents(t, set)[0]; a.Err == nil || a.Entries != nil {
		t.Fatalf("corrupt store: %+v", a)
	}
	dir = copyFixture(t, "state-2026.1.30")
	sess = filepath.Join(dir, "agents", "main", "sessions")
	s = open(t, dir)
	if _, err := s.Store("main"); err != nil { // loaded before the dir is closed
		t.Fatal(err)
	}
	if err := os.Chmod(sess, 0o300); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(sess, 0o755) })
	set, _ = transcripts.Open(s, transcripts.Options{})
	if a := agents(t, set)[0]; a.Err != nil || a.DirErr == nil || a.Files != nil {
		t.Fatalf("unlistable dir: %+v", a)
	}
}

func TestArchiveOf(t *testing.T) {
	for name, want := range map[string]string{
		"abc.jsonl.deleted.2026-01-01T00-00-00.000Z":        "abc",
		"abc.jsonl.reset.2026-01-01T00-00-00.000Z.3.zst":    "abc",
		"a.jsonl.reset.x.jsonl.deleted.2026":                "a.jsonl.reset.x",
		"abc.jsonl":                                         "",
		"abc.jsonl.deleted.":                                "",
		"abc.jsonl.archived.2026-01-01T00-00-00.000Z":       "",
		"abc.jsonl.lock":                                    "",
		"sessions.json.bak.2026-01-01T00-00-00.000Z":        "",
		"abc.json.deleted.2026-01-01T00-00-00.000Z":         "",
		"my session.jsonl.deleted.2026-01-01T00-00-00.000Z": "my session",
	} {
		if got := transcripts.ArchiveOf(name); got != want {
			t.Errorf("ArchiveOf(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestArchivedAt(t *testing.T) {
	for name, want := range map[string]string{
		"abc.jsonl.deleted.2026-01-01T10-20-30.456Z":                                    "2026-01-01T10:20:30.456Z",
		"abc.jsonl.reset.2026-01-01T10-20-30Z":                                          "2026-01-01T10:20:30Z",
		"abc.jsonl.reset.2026-01-01T10-20-30.456Z.0123456789abcdef0123456789abcdef.zst": "2026-01-01T10:20:30.456Z",
		"abc-1.jsonl.deleted.2026-01-01T10-20-30.456Z.zst":                              "2026-01-01T10:20:30.456Z",
		"abc.jsonl":                          "",
		"abc.jsonl.reset.sometime":           "",
		"a.jsonl.reset.x.jsonl.deleted.2026": "",
	} {
		if got := transcripts.ArchivedAt(name); got != want {
			t.Errorf("ArchivedAt(%q) = %q, want %q", name, got, want)
		}
	}
}

// The archived copies of an agent's sessions dir: one of a store entry's
// sessionId carries its key; one a later transcript's header names by its
// name before the rename gets that transcript's key from Attribute; a
// third, named by nothing, none.
func TestCopiesAttributed(t *testing.T) {
	dir := copyFixture(t, "state-2026.1.30")
	sessDir := filepath.Join(dir, "agents", "main", "sessions")
	const cur, named, stray = "c040fd20-0a1c-4ce0-924c-6e695a32eecb", "0badc0de-0000-4000-8000-0000000000b2", "0badc0de-0000-4000-8000-0000000000ff"
	for _, name := range []string{cur + ".jsonl.reset.2026-11-20T01-30-00.000Z", named + ".jsonl.reset.2026-11-20T02-30-00.000Z.zst", stray + ".jsonl.deleted.2026-11-20T00-30-00.000Z"} {
		if err := os.WriteFile(filepath.Join(sessDir, name), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	curPath := filepath.Join(sessDir, cur+".jsonl")
	b, _ := os.ReadFile(curPath)
	b = append([]byte(`{"type":"session","version":3,"id":"`+cur+`","timestamp":"2026-11-20T03:00:00.000Z","cwd":"/w","parentSession":"`+filepath.Join(sessDir, named+".jsonl")+`"}`+"\n"), b[slices.Index(b, '\n')+1:]...)
	if err := os.WriteFile(curPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s := open(t, dir)
	set, err := transcripts.Open(s, transcripts.Options{Agent: "main"})
	if err != nil {
		t.Fatal(err)
	}
	a := agents(t, set)[0]
	copies := a.Copies(s)
	a.Attribute(s, copies)
	got := map[string]string{}
	for _, c := range copies {
		got[c.SessionID] = c.Key
	}
	want := map[string]string{cur: "agent:main:main", named: "agent:main:main", stray: ""}
	if len(got) != len(want) {
		t.Fatalf("copies %v, want %v", got, want)
	}
	for sid, k := range want {
		if got[sid] != k {
			t.Errorf("copy of %s: key %q, want %q", sid, got[sid], k)
		}
	}
}
