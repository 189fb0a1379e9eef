package doctor_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/doctor"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/storegen"
)

const (
	mainSID   = "c040fd20-0a1c-4ce0-924c-6e695a32eecb" // agent:main:main
	groupSID  = "31eb6da1-5350-4f6d-a238-558aa0d5e101" // agent:main:telegram:group:-100123
	hookSID   = "17fe79ba-0072-4be3-8d41-7c49ce59d857" // agent:main:hook:16499f8f-…
	cronSID   = "f0a65321-234f-4249-82a5-20d842f0160d" // agent:main:cron:…
	pushSID   = "02161643-4320-459e-9b07-c42d02d97f2f" // agent:main:hook:github:push-42
	orphanSID = "a62a3a2e-299a-4c9a-84ee-c16cbe885241" // the fixture's reset leftover
	childKey  = "agent:main:subagent:fc55dd0b-f66c-4a88-916b-ae2a3648f8d2"
	runDead   = "7c0d1b2a-1111-4222-8333-444455556666"
	runChild  = "5b0d1b2a-1111-4222-8333-444455557777"
)

func write(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, p, data string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

func editStore(t *testing.T, p string, fn func(s string) string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	write(t, p, fn(string(b)))
}

// brokenJSON builds a 1.30 state dir with one case per JSON-era finding.
func brokenJSON(t *testing.T, root string) string {
	dir := filepath.Join(root, "json")
	if err := testutil.CopyTree(testutil.Fixture(t), dir); err != nil {
		t.Fatal(err)
	}
	mainS := filepath.Join(dir, "agents", "main", "sessions")
	opsS := filepath.Join(dir, "agents", "ops", "sessions")
	old := time.Now().Add(-time.Hour)
	// Locks: a dead store lock, a dead transcript lock, a live one, a FIFO
	// and a directory at lock paths.
	write(t, filepath.Join(opsS, "sessions.json.lock"), `{"pid":999999999,"startedAt":1767225600000}`)
	os.Chtimes(filepath.Join(opsS, "sessions.json.lock"), old, old)
	write(t, filepath.Join(mainS, cronSID+".jsonl.lock"), "{\n  \"pid\": 999999999,\n  \"createdAt\": \"2026-01-01T00:00:00.000Z\"\n}")
	write(t, filepath.Join(mainS, pushSID+".jsonl.lock"), fmt.Sprintf("{\n  \"pid\": %d,\n  \"createdAt\": %q\n}", os.Getpid(), time.Now().UTC().Format("2006-01-02T15:04:05.000Z")))
	if err := testutil.Mkfifo(filepath.Join(mainS, "fifo.jsonl.lock")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(opsS, "dir.jsonl.lock"), 0o700); err != nil {
		t.Fatal(err)
	}
	// Store: no sessionId, a reserved key, a duplicate label, a legacy path.
	editStore(t, filepath.Join(mainS, "sessions.json"), func(s string) string {
		s = strings.Replace(s, "{\n", "{\n  \"unknown\": {\"sessionId\": \"11111111-2222-4333-8444-555555555555\", \"updatedAt\": 1},\n  \"agent:main:nosid\": {\"updatedAt\": 1, \"label\": \"build-stats\"},\n  \"agent:main:dup\": {\"sessionId\": \"22222222-2222-4333-8444-555555555555\", \"updatedAt\": 1, \"label\": \"build-stats\"},\n  \"agent:main:outside\": {\"sessionId\": \"55555555-2222-4333-8444-555555555555\", \"updatedAt\": 1, \"sessionFile\": \""+filepath.Join(root, "outside", "55555555-2222-4333-8444-555555555555.jsonl")+"\"},\n  \"agent:main:legacy\": {\"sessionId\": \"33333333-2222-4333-8444-555555555555\", \"updatedAt\": 1, \"sessionFile\": \"/home/claw/.clawdbot/agents/main/sessions/33333333-2222-4333-8444-555555555555.jsonl\"},\n", 1)
		return s
	})
	write(t, filepath.Join(root, "outside", "55555555-2222-4333-8444-555555555555.jsonl"), `{"type":"session","version":3,"id":"55555555-2222-4333-8444-555555555555"}`+"\n")
	// JSON5 in the ops store (a comment).
	editStore(t, filepath.Join(opsS, "sessions.json"), func(s string) string { return "// edited by hand\n" + s })
	// Transcripts: corrupt lines, a torn last line, a broken parentId, a bad
	// header, an empty one, an oversized line; the orphan is the fixture's.
	appendTo(t, filepath.Join(mainS, groupSID+".jsonl"), "not json\n{\"type\":\"message\",\"id\":\"dead0001\",\"parentId\":\"nowhere1\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n{\"type\":\"mess")
	write(t, filepath.Join(mainS, hookSID+".jsonl"), "garbage first line\n")
	write(t, filepath.Join(mainS, "22222222-2222-4333-8444-555555555555.jsonl"), "")
	appendTo(t, filepath.Join(mainS, mainSID+".jsonl"), `{"type":"custom","customType":"big","data":"`+strings.Repeat("x", 1100<<10)+`","id":"big00001","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}`+"\n")
	// Our own state: a dead run, an undelivered announce, a due sub-agent.
	runsDir := filepath.Join(dir, "sessions-cli", "runs")
	write(t, filepath.Join(runsDir, runDead+".json"), `{"runId":"`+runDead+`","kind":"send","status":"running","createdAt":1767225600000,"target":{"key":"agent:main:main","agentId":"main"}}`)
	write(t, filepath.Join(runsDir, runChild+".json"), `{"runId":"`+runChild+`","kind":"spawn","status":"ok","createdAt":1767225600000,"target":{"key":"`+childKey+`","agentId":"main"},"spawn":{"childSessionKey":"`+childKey+`","cleanup":"keep"}}`)
	write(t, filepath.Join(dir, "sessions-cli", "outbox.jsonl"), `{"id":"o1","runId":"`+runDead+`","kind":"announce","sessionKey":"agent:main:main","message":"hi","at":1,"status":"delivered"}`+"\n"+`{"id":"o2","runId":"`+runDead+`","kind":"announce","sessionKey":"agent:main:main","message":"hi","at":2,"status":"failed","error":"hook exited 1"}`+"\n")
	write(t, filepath.Join(dir, "sessions-cli", "archive-index.json"), `{"version":1,"nextAtMs":1767225600000,"entries":[{"runId":"`+runChild+`","childKey":"`+childKey+`","agent":"main","archiveAtMs":1767225600000}]}`)
	return dir
}

// brokenSQLite builds a 2026.9.6 state dir with one case per SQLite-era
// finding: an invalid row, another schema version, legacy files beside the
// database, a leftover import archive.
func brokenSQLite(t *testing.T, root string) string {
	dir := filepath.Join(root, "sqlite")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.9.6"), dir); err != nil {
		t.Fatal(err)
	}
	exec := func(db, q string) {
		t.Helper()
		c, err := sql.Open("sqlite", db)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	exec(filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"), "UPDATE session_nodes SET entry_valid = 0 WHERE session_key = 'agent:main:cron:peer-job-1'")
	exec(filepath.Join(dir, "agents", "ops", "agent", "openclaw-agent.sqlite"), "PRAGMA user_version = 22")
	for _, suffix := range []string{"-wal", "-shm"} {
		for _, a := range []string{"main", "ops"} {
			os.Remove(filepath.Join(dir, "agents", a, "agent", "openclaw-agent.sqlite"+suffix))
		}
	}
	sess := filepath.Join(dir, "agents", "main", "sessions")
	write(t, filepath.Join(sess, "44444444-2222-4333-8444-555555555555.jsonl"), `{"type":"session","version":3,"id":"44444444-2222-4333-8444-555555555555"}`+"\n")
	write(t, filepath.Join(dir, "agents", "ops", "sessions", "sessions.json.migrated"), "{}")
	// An agent whose database has a garbled b-tree page (quick_check fails)
	// and one whose database is not SQLite at all.
	db, err := os.ReadFile(filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	page := 4096
	for i := len(db) - 8*page; i < len(db)-8*page+page; i++ {
		db[i] = 0x5a
	}
	write(t, filepath.Join(dir, "agents", "qc", "agent", "openclaw-agent.sqlite"), string(db))
	write(t, filepath.Join(dir, "agents", "broken", "agent", "openclaw-agent.sqlite"), strings.Repeat("not a database ", 512))
	return dir
}

func openState(t *testing.T, dir string) *state.State {
	t.Helper()
	s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Home: t.TempDir()}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

var testLimits = doctor.Limits{FileBytes: 1 << 20, LineBytes: 256 << 10}

func run(t *testing.T, dir string, now time.Time) []doctor.Finding {
	t.Helper()
	s := openState(t, dir)
	return doctor.Check(doctor.Collect(s, now, testLimits, nil), s.GlobalScope())
}

// lines renders findings as "severity check path key fixable", paths
// relative to root: what the golden file holds (messages carry pids and
// ages, and are checked by the unit tests of the checks).
func lines(root string, fs []doctor.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		p, _ := filepath.Rel(root, f.Path)
		fmt.Fprintf(&b, "%s %s %s %q fixable=%v\n", f.Severity, f.Check, filepath.ToSlash(p), f.SessionKey, f.Fixable)
	}
	return b.String()
}

func hashTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.Type()&fs.ModeNamedPipe != 0 {
			out[rel] = "fifo"
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(h[:])
		return nil
	})
	return out
}

// TestBrokenStateGolden: every finding of both eras' broken fixtures, as the
// golden file lists them; then --fix, and doctor again finds only what
// --fix may not repair, while every file no fix names is byte-identical.
func TestBrokenStateGolden(t *testing.T) {
	root := t.TempDir()
	jdir := brokenJSON(t, root)
	sdir := brokenSQLite(t, root)
	now := time.Now().Add(2 * time.Hour) // past the orphan grace of the fresh copies

	got := lines(root, run(t, jdir, now)) + lines(root, run(t, sdir, now))
	golden := filepath.Join("testdata", "doctor", "findings.golden")
	if testutil.UpdateGolden() {
		write(t, golden, got)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("findings differ from %s (UPDATE_GOLDEN=1 go test -run %s):\n--- got\n%s--- want\n%s", golden, t.Name(), got, want)
	}

	for _, dir := range []string{jdir, sdir} {
		before := hashTree(t, dir)
		s := openState(t, dir)
		fs := doctor.Check(doctor.Collect(s, now, testLimits, nil), s.GlobalScope())
		doctor.Fix(context.Background(), s, fs, now, doctor.FixOptions{LockTimeout: 2 * time.Second})
		named := map[string]bool{}
		for _, f := range fs {
			if f.Fixable && f.Fixed == "" {
				t.Errorf("%s %s not fixed: %s", f.Check, f.Path, f.FixError)
			}
			if f.Fixed != "" {
				rel, _ := filepath.Rel(dir, f.Path)
				named[rel] = true
			}
		}
		// A due sub-agent's archive touches its store and transcript too.
		if dir == jdir {
			named["agents/main/sessions/sessions.json"] = true
			named["agents/main/sessions/0c59edd8-9b7b-4d26-9fb1-8b3778f90a3d.jsonl"] = true
			named["sessions-cli/runs/"+runChild+".json"] = true
		}
		after := hashTree(t, dir)
		var changed []string
		for p, h := range before {
			if !named[p] && after[p] != h {
				changed = append(changed, p)
			}
		}
		sort.Strings(changed)
		if len(changed) > 0 {
			t.Errorf("files no fix names changed: %v", changed)
		}
		for _, f := range run(t, dir, now) {
			if f.Fixable {
				t.Errorf("after --fix: %s %s still there", f.Check, f.Path)
			}
		}
	}
	// The orphan was renamed, never deleted.
	m, _ := filepath.Glob(filepath.Join(jdir, "agents", "main", "sessions", orphanSID+".jsonl.deleted.*"))
	if len(m) != 1 {
		t.Errorf("orphan not renamed .deleted.<ts>: %v", m)
	}
}

// TestCleanFixture: the bundled fixtures have nothing to report but the
// 1.30 one's reset leftover, once it is older than the grace.
func TestCleanFixture(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	if err := testutil.CopyTree(testutil.Fixture(t), dir); err != nil {
		t.Fatal(err)
	}
	if fs := run(t, dir, time.Now()); len(fs) != 0 {
		t.Fatalf("fresh copy: %s", lines(dir, fs))
	}
	fs := run(t, dir, time.Now().Add(time.Hour))
	if len(fs) != 1 || fs[0].Check != "transcript.orphan" || !strings.Contains(fs[0].Path, orphanSID) {
		t.Fatalf("an hour later: %s", lines(dir, fs))
	}
}

// BenchmarkDoctor10k: Collect + Check over a 10k-entry store and its
// transcripts (internal/testutil/storegen). The target is ≤ 2 s.
func BenchmarkDoctor10k(b *testing.B) {
	dir := storegen.State(b, 10000)
	s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Home: b.TempDir()}, Warn: func(string) {}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	for b.Loop() {
		s2, _ := state.Open(state.Options{StateDir: dir, Env: config.Env{Home: b.TempDir()}, Warn: func(string) {}})
		fs := doctor.Check(doctor.Collect(s2, time.Now(), doctor.Limits{}, nil), s2.GlobalScope())
		s2.Close()
		if len(fs) == 0 {
			b.Fatal("storegen's cloned labels should be reported as duplicates")
		}
	}
}
