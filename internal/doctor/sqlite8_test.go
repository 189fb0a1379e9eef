package doctor_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/doctor"
	"github.com/openclaw/sessions/internal/testutil"
)

// The sessions of the 2026.9.6 fixture's main agent.
var main96 = map[string]string{
	"agent:main:main":                   "8000a7c0-cc69-4a7f-82ba-219f4a789783",
	"agent:main:telegram:group:-100123": "c2089fe4-f9dc-41f6-961d-f0b94413fefa",
	"agent:main:cron:peer-job-1":        "130e6651-40d6-4085-8221-cad6e8e68328",
	"agent:main:hook:github:push-42":    "a6407a43-3695-4d12-8769-bc5b1e94c06e",
}

// TestMain lets the test binary hold a database's write lock as a child
// process (DOCTOR_TEST_HOLD=<db>): BEGIN IMMEDIATE, "ready" on stdout,
// then wait for stdin to close.
func TestMain(m *testing.M) {
	if p := os.Getenv("DOCTOR_TEST_HOLD"); p != "" {
		db, err := sql.Open("sqlite", "file:"+p+"?mode=rw")
		if err != nil {
			panic(err)
		}
		db.SetMaxOpenConns(1)
		c, err := db.Conn(context.Background())
		if err != nil {
			panic(err)
		}
		if _, err := c.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
			panic(err)
		}
		fmt.Println("ready")
		bufio.NewReader(os.Stdin).ReadString('\n')
		c.ExecContext(context.Background(), "ROLLBACK")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func copy96(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "s96")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.9.6"), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func db96(dir, agent string) string {
	return filepath.Join(dir, "agents", agent, "agent", "openclaw-agent.sqlite")
}

func sqlExec(t *testing.T, db, q string, args ...any) {
	t.Helper()
	c, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Exec(q, args...); err != nil {
		t.Fatal(q, err)
	}
}

// legacyStore writes agents/main/sessions/sessions.json with the fixture's
// main sessions, plus extra entries.
func legacyStore(t *testing.T, dir string, extra map[string]any) string {
	t.Helper()
	c, err := sql.Open("sqlite", "file:"+db96(dir, "main")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Query("SELECT session_key, current_session_id, json_extract(entry_json, '$.updatedAt') FROM session_nodes")
	if err != nil {
		t.Fatal(err)
	}
	st := map[string]any{}
	for rows.Next() {
		var k, sid string
		var up int64
		if err := rows.Scan(&k, &sid, &up); err != nil {
			t.Fatal(err)
		}
		st[k] = map[string]any{"sessionId": sid, "updatedAt": up}
	}
	rows.Close()
	for k, v := range extra {
		st[k] = v
	}
	b, _ := json.MarshalIndent(st, "", "  ")
	p := filepath.Join(dir, "agents", "main", "sessions", "sessions.json")
	write(t, p, string(b))
	return p
}

func byCheck(fs []doctor.Finding, check string) []doctor.Finding {
	var out []doctor.Finding
	for _, f := range fs {
		if f.Check == check {
			out = append(out, f)
		}
	}
	return out
}

func collect(t *testing.T, dir string, lim doctor.Limits) (*doctor.Snapshot, []doctor.Finding) {
	t.Helper()
	s := openState(t, dir)
	snap := doctor.Collect(s, time.Now(), lim, nil)
	return snap, doctor.Check(snap, s.GlobalScope())
}

// A -wal larger than its database and over the limit (a sparse file: the
// check only stats it) is a warning naming OpenClaw's restart, never a
// removal of the -wal.
func TestWALOversize(t *testing.T) {
	dir := copy96(t)
	wal := db96(dir, "main") + "-wal"
	write(t, wal, "")
	if err := os.Truncate(wal, 65<<20); err != nil {
		t.Fatal(err)
	}
	_, fs := collect(t, dir, doctor.Limits{})
	got := byCheck(fs, "sqlite.wal-size")
	if len(got) != 1 || got[0].Severity != doctor.SevWarning || got[0].Fixable || got[0].AgentID != "main" {
		t.Fatalf("%+v", fs)
	}
	for _, s := range []string{"65.0 MiB", "larger than the database", "Never delete or move the -wal"} {
		if !strings.Contains(got[0].Message, s) {
			t.Errorf("message lacks %q: %s", s, got[0].Message)
		}
	}
	if runtime.GOOS == "linux" && !strings.Contains(got[0].Message, "no process found holding it open") {
		t.Errorf("message: %s", got[0].Message)
	}
	if got[0].Fix != "openclaw gateway restart" {
		t.Errorf("fix: %s", got[0].Fix)
	}
	// Not past the limit: nothing.
	if err := os.Truncate(wal, 8<<20); err != nil {
		t.Fatal(err)
	}
	if _, fs := collect(t, dir, doctor.Limits{}); len(byCheck(fs, "sqlite.wal-size")) != 0 {
		t.Fatalf("8 MiB -wal reported: %+v", fs)
	}
}

// A database over the size limit names the tables that take the space
// (dbstat, read-only).
func TestDBOversize(t *testing.T) {
	dir := copy96(t)
	_, fs := collect(t, dir, doctor.Limits{DBBytes: 64 << 10})
	got := byCheck(fs, "sqlite.db-size")
	if len(got) != 2 {
		t.Fatalf("%+v", fs)
	}
	for _, f := range got {
		if f.Severity != doctor.SevWarning || !strings.Contains(f.Message, "the largest tables: ") || !strings.Contains(f.Message, "session_nodes ") {
			t.Errorf("%s: %s", f.Path, f.Message)
		}
		if f.Fix != "sessions prune --older-than 30d --dry-run" {
			t.Errorf("fix: %s", f.Fix)
		}
	}
	if _, fs := collect(t, dir, doctor.Limits{}); len(byCheck(fs, "sqlite.db-size")) != 0 {
		t.Fatalf("under 1 GiB reported: %+v", fs)
	}
}

// Inline base64 media in transcript events: counted with their bytes, the
// session with the most named with OpenClaw's compaction.
func TestInlineMedia(t *testing.T) {
	dir := copy96(t)
	sid := main96["agent:main:telegram:group:-100123"]
	b64 := strings.Repeat("QUJD", 600<<10) // 2.4 MB
	uri := `{"type":"message","id":"media001","parentId":null,"timestamp":"2026-11-20T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"see ![x](data:image/png;base64,` + b64 + `)"}]}}`
	img := `{"type":"message","id":"media002","parentId":"media001","timestamp":"2026-11-20T00:00:01.000Z","message":{"role":"user","content":[{"type":"image","data":"` + b64[:4096] + `","mimeType":"image/png"}]}}`
	small := `{"type":"message","id":"media003","parentId":"media002","timestamp":"2026-11-20T00:00:02.000Z","message":{"role":"user","content":"data:text/plain;base64,QUJD"}}`
	db := db96(dir, "main")
	for _, ev := range []string{uri, img, small} {
		sqlExec(t, db, "INSERT INTO transcript_events(session_id, seq, event_json, created_at) SELECT ?, max(seq)+1, ?, 0 FROM transcript_events WHERE session_id = ?", sid, ev, sid)
	}
	_, fs := collect(t, dir, doctor.Limits{})
	got := byCheck(fs, "sqlite.inline-media")
	if len(got) != 1 || got[0].Severity != doctor.SevWarning || got[0].AgentID != "main" {
		t.Fatalf("%+v", fs)
	}
	want := fmt.Sprintf("2 transcript event(s) in 1 session(s) carry media inline as base64 (data: URIs, image data), %s in all, most in agent:main:telegram:group:-100123", "2.3 MiB")
	if !strings.HasPrefix(got[0].Message, want) {
		t.Errorf("message:\n got %s\nwant %s…", got[0].Message, want)
	}
	if got[0].Fix != `openclaw gateway call sessions.compact --params '{"key":"agent:main:telegram:group:-100123"}'` {
		t.Errorf("fix: %s", got[0].Fix)
	}
}

// A legacy sessions.json whose every entry the database holds: a warning
// --fix moves aside to sessions.json.migrated-<time>.bak (never while an
// OpenClaw process holds the state dir); the summary counts both eras.
func TestLegacyStoreMigrated(t *testing.T) {
	dir := copy96(t)
	p := legacyStore(t, dir, nil)
	// Older than the database's last write: sessions reads the database.
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(p, old, old)
	snap, fs := collect(t, dir, doctor.Limits{})
	got := byCheck(fs, "sqlite.legacy-store")
	if len(got) != 1 || got[0].Severity != doctor.SevWarning || !got[0].Fixable || got[0].Fix != doctor.FixCommand || got[0].Path != p {
		t.Fatalf("%+v", fs)
	}
	if !strings.Contains(got[0].Message, "holds every one of its entries") || !strings.Contains(got[0].Message, "Legacy session store requires migration") {
		t.Errorf("message: %s", got[0].Message)
	}
	if s := doctor.Size(snap); s != "2 agent(s), 5 session entries, 5 transcript(s); beside them, of the other era: 4 session entries, 0 transcript(s)" {
		t.Errorf("size: %s", s)
	}

	// An OpenClaw gateway holding the state dir: not moved.
	lockDir := filepath.Join(dir, "tmp", fmt.Sprintf("openclaw-%d", os.Getuid()))
	write(t, filepath.Join(lockDir, "gateway.state.lock"), fmt.Sprintf(`{"pid":%d,"role":"gateway","createdAt":"2026-11-20T00:00:00.000Z"}`, os.Getpid()))
	s := openState(t, dir)
	doctor.Fix(context.Background(), s, got, time.Now(), doctor.FixOptions{LockTimeout: 2 * time.Second})
	if got[0].Fixed != "" || !strings.Contains(got[0].FixError, "not moved: OpenClaw gateway (pid") {
		t.Fatalf("with a gateway: fixed %q, error %q", got[0].Fixed, got[0].FixError)
	}
	if !fileThere(p) {
		t.Fatal("moved beside a gateway")
	}
	os.Remove(filepath.Join(lockDir, "gateway.state.lock"))

	before, _ := os.ReadFile(p)
	s = openState(t, dir)
	_, fs = collect(t, dir, doctor.Limits{})
	got = byCheck(fs, "sqlite.legacy-store")
	doctor.Fix(context.Background(), s, got, time.Now(), doctor.FixOptions{LockTimeout: 2 * time.Second})
	if got[0].FixError != "" || !strings.HasPrefix(got[0].Fixed, "moved to "+p+".migrated-") || !strings.HasSuffix(got[0].Fixed, ".bak") {
		t.Fatalf("fixed %q, error %q", got[0].Fixed, got[0].FixError)
	}
	if fileThere(p) {
		t.Fatal("sessions.json still there")
	}
	m, _ := filepath.Glob(p + ".migrated-*.bak")
	if len(m) != 1 {
		t.Fatalf("backup: %v", m)
	}
	if after, _ := os.ReadFile(m[0]); string(after) != string(before) {
		t.Error("backup differs from the file")
	}
	if _, fs := collect(t, dir, doctor.Limits{}); len(fs) != 0 {
		t.Errorf("after --fix: %+v", fs)
	}
}

// A legacy sessions.json with entries the database lacks (or holds older
// or under another sessionId): never moved; the finding lists the keys and
// names OpenClaw's import. A JSONL beside the database that it does not
// hold is explained, never deleted; one it holds is an import's leftover.
func TestLegacyStorePartial(t *testing.T) {
	dir := copy96(t)
	sess := filepath.Join(dir, "agents", "main", "sessions")
	p := legacyStore(t, dir, map[string]any{
		"agent:main:extra":           map[string]any{"sessionId": "44444444-2222-4333-8444-555555555555", "updatedAt": 1795238261999},
		"agent:main:cron:peer-job-1": map[string]any{"sessionId": "55555555-2222-4333-8444-555555555555", "updatedAt": 1},
		"agent:main:main":            map[string]any{"sessionId": main96["agent:main:main"], "updatedAt": 1995238227728},
	})
	orphan := filepath.Join(sess, "44444444-2222-4333-8444-555555555555.jsonl")
	write(t, orphan, `{"type":"session","version":3,"id":"44444444-2222-4333-8444-555555555555"}`+"\n")
	imported := filepath.Join(sess, main96["agent:main:hook:github:push-42"]+".jsonl")
	write(t, imported, `{"type":"session","version":3,"id":"`+main96["agent:main:hook:github:push-42"]+`"}`+"\n")
	snap, fs := collect(t, dir, doctor.Limits{})
	got := byCheck(fs, "sqlite.legacy-store")
	if len(got) != 1 || got[0].Fixable || got[0].Fix != doctor.ImportCommand || got[0].Severity != doctor.SevWarning {
		t.Fatalf("%+v", fs)
	}
	if !strings.Contains(got[0].Message, "lacks 3 of them or holds them under another sessionId or older (agent:main:cron:peer-job-1, agent:main:extra, agent:main:main)") {
		t.Errorf("message: %s", got[0].Message)
	}
	beside := map[string]doctor.Finding{}
	for _, f := range byCheck(fs, "sqlite.legacy-beside") {
		beside[f.Path] = f
	}
	if f := beside[orphan]; f.Severity != doctor.SevWarning || f.Fix != doctor.ImportCommand || f.Fixable {
		t.Errorf("orphan beside a sessions.json: %+v", f)
	}
	if f := beside[imported]; f.Severity != doctor.SevInfo || !strings.Contains(f.Message, "the 2026.8+ SQLite store holds") {
		t.Errorf("imported: %+v", f)
	}
	if s := doctor.Size(snap); !strings.Contains(s, "of the other era") {
		t.Errorf("size: %s", s)
	}
	// --fix changes nothing.
	s := openState(t, dir)
	doctor.Fix(context.Background(), s, fs, time.Now(), doctor.FixOptions{LockTimeout: 2 * time.Second})
	for _, f := range []string{p, orphan, imported} {
		if !fileThere(f) {
			t.Errorf("%s gone", f)
		}
	}

	// Without a sessions.json, an unreferenced JSONL is kept and its
	// finding names no import.
	os.Remove(p)
	_, fs = collect(t, dir, doctor.Limits{})
	for _, f := range byCheck(fs, "sqlite.legacy-beside") {
		if f.Path == orphan && (f.Severity != doctor.SevWarning || !strings.Contains(f.Message, "no session of the store references") || !strings.HasPrefix(f.Fix, "mkdir -p ~/openclaw-legacy && mv -n -- ")) {
			t.Errorf("orphan: %+v", f)
		}
	}
}

// A database whose write lock another process holds right now: a warning
// naming that process (from /proc on Linux); the probe never waits and
// leaves the database as it was.
func TestWriteLocked(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("who holds a file open is read from /proc")
	}
	dir := copy96(t)
	db := db96(dir, "ops")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DOCTOR_TEST_HOLD="+db)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("holder: %q %v", line, err)
	}
	start := time.Now()
	_, fs := collect(t, dir, doctor.Limits{})
	got := byCheck(fs, "sqlite.write-locked")
	if len(got) != 1 || got[0].AgentID != "ops" || got[0].Severity != doctor.SevWarning {
		t.Fatalf("%+v", fs)
	}
	if want := fmt.Sprintf("pid %d", cmd.Process.Pid); !strings.Contains(got[0].Message, want) || got[0].Fix != fmt.Sprintf("ps -o pid,etime,args -p %d", cmd.Process.Pid) {
		t.Errorf("holder not named: %s / %s", got[0].Message, got[0].Fix)
	}
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("doctor took %s beside a held lock", d)
	}
	in.Close()
	cmd.Wait()
	if _, fs := collect(t, dir, doctor.Limits{}); len(byCheck(fs, "sqlite.write-locked")) != 0 {
		t.Errorf("released, still reported: %+v", fs)
	}
}

func fileThere(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
