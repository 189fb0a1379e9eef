package sqlitewrite

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/jsonx"
)

// embeddedLock writes gateway.state.lock as `openclaw agent --local` 2026.9.6
// does (role agent-embedded), for pid, taken at since.
func embeddedLock(t *testing.T, state, role string, pid int, since time.Time) string {
	t.Helper()
	dir := LockDir(state)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	created := ""
	if !since.IsZero() {
		created = since.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	body := fmt.Sprintf(`{"pid":%d,"ownerId":"o1","createdAt":%q,"configPath":"/x/openclaw.json","stateDir":%q,"role":%q}`, pid, created, state, role)
	lock := filepath.Join(dir, "gateway.state.lock")
	if err := os.WriteFile(lock, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return lock
}

// fakeArgv makes the embedded holder's command line read as args.
func fakeArgv(t *testing.T, pid int, args ...string) {
	old := procCmdline
	procCmdline = func(p int) []string {
		if p == pid {
			return args
		}
		return old(p)
	}
	t.Cleanup(func() { procCmdline = old })
}

// TestWriteBesideEmbeddedAgent: an embedded agent turn (gateway.state.lock
// role agent-embedded, plus its agent_database_leases row) does not stop
// writes to other sessions; its own session (named by its command line)
// and every session written since it took the lock are refused, exit 10,
// nothing written; our own follow-up steps on a session we wrote go on.
func TestWriteBesideEmbeddedAgent(t *testing.T) {
	state := copyState(t)
	pid := os.Getpid()
	since := time.Now().Add(-time.Minute)
	lock := embeddedLock(t, state, RoleEmbedded, pid, since)
	lockBody, _ := os.ReadFile(lock)
	running := "agent:main:cron:peer-job-1"
	fakeArgv(t, pid, "node", "openclaw.mjs", "agent", "--local", "--session-key", running, "--message", "hi")
	abs, _ := filepath.Abs(Path(state, "main"))
	sdb := rawDB(t, filepath.Join(state, "state", "openclaw.sqlite"))
	mustExec(t, sdb, "INSERT INTO agent_database_leases(lease_id, agent_id, path, owner_pid, owner_start_time, opened_at) VALUES ('l1', 'main', ?, ?, NULL, 0)", abs, pid)
	sdb.Close()

	w := openWriter(t, state, "main")
	db := rawDB(t, w.Path())
	turn := func(key, idem string) Turn {
		return Turn{SessionKey: key, IdempotencyKey: idem, Interaction: true, Messages: []json.RawMessage{userMsg("beside " + idem), assistantMsg("ok " + idem)}}
	}
	// another session: written, then our own entry touch after the turn
	if _, err := w.AppendTurn(turn(mainKey, "sessions:beside-1")); err != nil {
		t.Fatalf("append beside an embedded agent: %v", err)
	}
	if _, err := w.TouchEntry(mainKey, func(e *jsonx.Object) { _ = e.Set("model", "mock-1") }); err != nil {
		t.Fatalf("our own follow-up touch: %v", err)
	}
	// a child we create, then its first turn
	c, err := w.CreateChild(Child{ParentKey: mainKey, RequesterAgent: "main", Label: "beside child"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AppendTurn(turn(c.Key, "sessions:beside-2")); err != nil {
		t.Fatalf("first turn of our child beside an embedded agent: %v", err)
	}

	// the session the agent runs (its --session-key)
	n := queryInt(t, db, "SELECT count(*) FROM transcript_events")
	_, err = w.AppendTurn(turn(running, "sessions:beside-3"))
	wantCode(t, err, apperr.CodeState)
	if !strings.Contains(err.Error(), "runs this session") || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", pid)) {
		t.Fatalf("refusal does not say why: %v", err)
	}
	lbl := "taken by nobody"
	_, err = w.PatchEntry(running, Patch{Label: &lbl})
	wantCode(t, err, apperr.CodeState)

	// a session the agent has written since it started (updated_at)
	tg := "agent:main:telegram:group:-100123"
	now := time.Now().UnixMilli()
	mustExec(t, db, "UPDATE session_nodes SET entry_json = json_set(entry_json, '$.updatedAt', ?), updated_at = ? WHERE session_key = ?", now, now, tg)
	mustExec(t, db, "UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?", tg)
	_, err = w.PatchEntry(tg, Patch{Label: &lbl})
	wantCode(t, err, apperr.CodeState)
	if !strings.Contains(err.Error(), "since it started") {
		t.Fatalf("refusal does not say why: %v", err)
	}
	// a session we wrote and the agent then wrote too (its transcript stamp)
	mustExec(t, db, "UPDATE session_windows SET transcript_updated_at = max(updated_at, transcript_updated_at) + 1000 WHERE session_key = ?", mainKey)
	_, err = w.AppendTurn(turn(mainKey, "sessions:beside-4"))
	wantCode(t, err, apperr.CodeState)
	if got := queryInt(t, db, "SELECT count(*) FROM transcript_events"); got != n {
		t.Fatalf("refused writes appended %d events", got-n)
	}
	checkClean(t, db)
	if data, _ := os.ReadFile(lock); string(data) != string(lockBody) {
		t.Fatal("the lock file was changed")
	}
	if queryInt(t, rawDB(t, filepath.Join(state, "state", "openclaw.sqlite")), "SELECT count(*) FROM agent_database_leases") != 1 {
		t.Fatal("the lease row was changed")
	}
}

// TestRefuseBesideOtherHolders: a gateway, SQLite maintenance, a skill
// workshop apply, an embedded lock that does not say when it was taken,
// and a live OpenClaw process known only by its lease row still refuse
// Open (exit 10), and a gateway that appears after Open refuses the next
// write step.
func TestRefuseBesideOtherHolders(t *testing.T) {
	state := copyState(t)
	pid := os.Getpid()
	before := fileHash(t, Path(state, "main"))
	for _, role := range []string{"gateway", "sqlite-maintenance", "skill-workshop-apply"} {
		embeddedLock(t, state, role, pid, time.Now())
		_, err := Open(state, "main", Options{})
		wantCode(t, err, apperr.CodeState)
		if !strings.Contains(err.Error(), role) && role != "gateway" {
			t.Fatalf("refusal does not name %s: %v", role, err)
		}
	}
	embeddedLock(t, state, RoleEmbedded, pid, time.Time{})
	_, err := Open(state, "main", Options{})
	wantCode(t, err, apperr.CodeState)

	// a lease row of a live process that holds no lock
	lock := filepath.Join(LockDir(state), "gateway.state.lock")
	os.Remove(lock)
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	abs, _ := filepath.Abs(Path(state, "main"))
	sdb := rawDB(t, filepath.Join(state, "state", "openclaw.sqlite"))
	mustExec(t, sdb, "INSERT INTO agent_database_leases(lease_id, agent_id, path, owner_pid, owner_start_time, opened_at) VALUES ('l2', 'main', ?, ?, NULL, 0)", abs, sleeper.Process.Pid)
	_, err = Open(state, "main", Options{})
	wantCode(t, err, apperr.CodeState)
	// the same lease beside an embedded lock of its parent (a worker): shared
	embeddedLock(t, state, RoleEmbedded, pid, time.Now())
	w, err := Open(state, "main", Options{})
	if err != nil {
		t.Fatalf("a worker's lease beside its embedded agent refused: %v", err)
	}
	defer w.Close()
	if fileHash(t, Path(state, "main")) != before {
		t.Fatal("a refused Open changed the database")
	}
	// a gateway starts while we wait on a model: the next step refuses
	embeddedLock(t, state, "gateway", pid, time.Now())
	_, err = w.AppendTurn(Turn{SessionKey: mainKey, IdempotencyKey: "sessions:late-gw", Messages: []json.RawMessage{userMsg("x")}})
	wantCode(t, err, apperr.CodeState)
	if !strings.Contains(err.Error(), "--gateway") {
		t.Fatalf("refusal does not name --gateway: %v", err)
	}
	if fileHash(t, Path(state, "main")) != before {
		t.Fatal("a refused step changed the database")
	}
}

// TestCheckpointAfterCommit: with SQLite's auto-checkpoint moved out of
// COMMIT, the -wal still stops growing at ~wal_autocheckpoint pages (a
// PASSIVE checkpoint after the commit that reaches it) and every appended
// turn stays readable.
func TestCheckpointAfterCommit(t *testing.T) {
	state := copyState(t)
	w := openWriter(t, state, "main")
	wal := func() int64 {
		fi, err := os.Stat(w.Path() + "-wal")
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	turn := func(i int) {
		if _, err := w.AppendTurn(Turn{SessionKey: mainKey, IdempotencyKey: fmt.Sprintf("sessions:ckpt-%d", i),
			Messages: []json.RawMessage{userMsg(strings.Repeat("x", 3000)), assistantMsg(strings.Repeat("y", 3000))}}); err != nil {
			t.Fatal(err)
		}
	}
	turn(0)
	perTurn := wal()
	limit := int64(walCheckpointPages * (4096 + 24))
	n := int(3*limit/perTurn) + 1 // three times what fits without a checkpoint
	var most int64
	for i := 1; i <= n; i++ {
		turn(i)
		most = max(most, wal())
	}
	if most > limit+4*perTurn {
		t.Fatalf("the -wal grew to %d bytes over %d turns (%d each): no checkpoint", most, n, perTurn)
	}
	db := rawDB(t, w.Path())
	if got := queryInt(t, db, "SELECT count(*) FROM transcript_event_identities WHERE message_idempotency_key LIKE 'sessions:ckpt-%'"); got != int64(n+1) {
		t.Fatalf("%d turns readable, want %d", got, n+1)
	}
	checkClean(t, db)
}
