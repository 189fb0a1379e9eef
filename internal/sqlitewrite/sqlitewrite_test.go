package sqlitewrite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"modernc.org/sqlite"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/testutil"
)

const mainKey = "agent:main:main"

func userMsg(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"role": "user", "content": []map[string]string{{"type": "text", "text": text}}, "timestamp": 1795300000000})
	return b
}

func assistantMsg(text string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%q}],"api":"openai-completions","provider":"mock","model":"mock-1","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1795300000001}`, text))
}

// TestSchemaDefinitions: schema96 is what the real 2026.9.6 created in the
// fixture (regenerate with UPDATE_GOLDEN=1 after re-generating the fixture).
func TestSchemaDefinitions(t *testing.T) {
	db := rawDB(t, Path(copyState(t), "main"))
	tables := map[string]bool{}
	for _, o := range schema96 {
		tables[o.Table] = true
	}
	rows, err := db.Query("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master ORDER BY tbl_name, type, name")
	if err != nil {
		t.Fatal(err)
	}
	var got []schemaObject
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.Type, &o.Name, &o.Table, &o.SQL); err != nil {
			t.Fatal(err)
		}
		if tables[o.Table] {
			got = append(got, o)
		}
	}
	rows.Close()
	if testutil.UpdateGolden() {
		var b strings.Builder
		b.WriteString("// Code generated from testdata/state-2026.9.6 (written by the real OpenClaw 2026.9.6); DO NOT EDIT.\n")
		b.WriteString("// Regenerate: UPDATE_GOLDEN=1 go test ./internal/sqlitewrite -run TestSchemaDefinitions\n\npackage sqlitewrite\n\n")
		b.WriteString("// schema96 is every sqlite_master row (type, name, table, SQL) of the tables\n// this package writes, or that a write reaches through a trigger or an ON\n// DELETE CASCADE, exactly as OpenClaw 2026.9.6 (agent schema 23) creates them.\nvar schema96 = []schemaObject{\n")
		for _, o := range got {
			fmt.Fprintf(&b, "\t{%q, %q, %q, %q},\n", o.Type, o.Name, o.Table, o.SQL)
		}
		b.WriteString("}\n")
		if err := os.WriteFile("schema96.go", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if len(got) != len(schema96) {
		t.Fatalf("fixture has %d objects on the written tables, schema96 %d", len(got), len(schema96))
	}
	for i := range got {
		if got[i] != schema96[i] {
			t.Errorf("object %d: fixture %+v, schema96 %+v", i, got[i].Name, schema96[i].Name)
		}
	}
}

func TestAppendTurn(t *testing.T) {
	state := copyState(t)
	w := openWriter(t, state, "main")
	db := rawDB(t, w.Path())
	sid := queryString(t, db, "SELECT current_session_id FROM session_nodes WHERE session_key = ?", mainKey)
	leaf := queryString(t, db, "SELECT event_id FROM transcript_event_identities WHERE session_id = ? ORDER BY seq DESC LIMIT 1", sid)
	maxSeq := queryInt(t, db, "SELECT max(seq) FROM transcript_events WHERE session_id = ?", sid)
	oldEntry := queryString(t, db, "SELECT entry_json FROM session_nodes WHERE session_key = ?", mainKey)
	oldUpdated := queryInt(t, db, "SELECT updated_at FROM session_nodes WHERE session_key = ?", mainKey)

	res, err := w.AppendTurn(Turn{SessionKey: mainKey, SessionID: sid, IdempotencyKey: "sessions:test-1",
		Messages: []json.RawMessage{userMsg("the word is zanzibarquux"), assistantMsg("noted: zanzibarquux")}, Interaction: true,
		Touch: func(e *jsonx.Object) { _ = e.Set("model", "mock-1") }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Already || res.Header || !res.Indexed || res.FirstSeq != maxSeq+1 || res.LastSeq != maxSeq+2 || len(res.EventIDs) != 2 {
		t.Fatalf("result %+v (max seq before %d)", res, maxSeq)
	}
	checkClean(t, db)
	// the chain: user → old leaf, assistant → user
	var p1, p2 string
	p1 = queryString(t, db, "SELECT parent_id FROM transcript_event_identities WHERE session_id = ? AND event_id = ?", sid, res.EventIDs[0])
	p2 = queryString(t, db, "SELECT parent_id FROM transcript_event_identities WHERE session_id = ? AND event_id = ?", sid, res.EventIDs[1])
	if p1 != leaf || p2 != res.EventIDs[0] {
		t.Fatalf("parents %s %s, want %s %s", p1, p2, leaf, res.EventIDs[0])
	}
	ev := queryString(t, db, "SELECT event_json FROM transcript_events WHERE session_id = ? AND seq = ?", sid, res.FirstSeq)
	if gjson.Get(ev, "parentId").String() != leaf || gjson.Get(ev, "message.idempotencyKey").String() != "sessions:test-1" ||
		gjson.Get(ev, "type").String() != "message" || !strings.HasSuffix(gjson.Get(ev, "timestamp").String(), "Z") {
		t.Fatalf("user event %s", ev)
	}
	if n := queryInt(t, db, "SELECT event_utf8_bytes FROM transcript_events WHERE session_id = ? AND seq = ?", sid, res.FirstSeq); n != int64(len(ev)) {
		t.Fatalf("event_utf8_bytes %d, len %d", n, len(ev))
	}
	// projection current
	if got := queryInt(t, db, "SELECT indexed_seq FROM session_transcript_index_state WHERE session_id = ? AND needs_rebuild = 0", sid); got != res.LastSeq {
		t.Fatalf("indexed_seq %d, want %d", got, res.LastSeq)
	}
	if got := queryString(t, db, "SELECT leaf_event_id FROM session_transcript_index_state WHERE session_id = ?", sid); got != res.EventIDs[1] {
		t.Fatalf("leaf %s", got)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM session_transcript_active_events WHERE session_id = ?", sid); n != queryInt(t, db, "SELECT active_event_count FROM session_transcript_index_state WHERE session_id = ?", sid) {
		t.Fatalf("active rows %d differ from the count", n)
	}
	if got := queryString(t, db, `SELECT r.message_id FROM session_transcript_fts f JOIN session_transcript_fts_rows r ON r.id = f.rowid
		WHERE session_transcript_fts MATCH 'zanzibarquux' AND f.role = 'user'`); got != res.EventIDs[0] {
		t.Fatalf("FTS hit %q, want %s", got, res.EventIDs[0])
	}
	// entry: unknown fields kept, updatedAt advanced, mirrors consistent
	newEntry := queryString(t, db, "SELECT entry_json FROM session_nodes WHERE session_key = ?", mainKey)
	for _, k := range []string{"skillsSnapshot", "contextBudgetStatus", "activeWriterRunId", "estimatedCostUsd", "totalTokensVersion"} {
		if gjson.Get(oldEntry, k).Raw != gjson.Get(newEntry, k).Raw {
			t.Errorf("entry field %s changed", k)
		}
	}
	if u := gjson.Get(newEntry, "updatedAt").Int(); u <= oldUpdated || u != res.UpdatedAt {
		t.Fatalf("updatedAt %d (old %d)", u, oldUpdated)
	}
	if queryInt(t, db, "SELECT last_interaction_at FROM session_nodes WHERE session_key = ?", mainKey) != gjson.Get(newEntry, "lastInteractionAt").Int() {
		t.Fatal("last_interaction_at not mirrored")
	}
	if got := queryInt(t, db, "SELECT transcript_observed_at = transcript_updated_at AND updated_at = ? FROM session_windows WHERE session_id = ?", res.UpdatedAt, sid); got != 1 {
		t.Fatal("window not touched")
	}
	// our own reader sees the turn
	rd, err := sqlitestore.Open(w.Path(), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	st, err := rd.Store()
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped != 0 {
		t.Fatalf("reader skipped %d rows", st.Skipped)
	}
}

func TestAppendIdempotentRetry(t *testing.T) {
	state := copyState(t)
	w := openWriter(t, state, "main")
	db := rawDB(t, w.Path())
	turn := Turn{SessionKey: mainKey, IdempotencyKey: "sessions:retry", Messages: []json.RawMessage{userMsg("once"), assistantMsg("only once")}}
	if _, err := w.AppendTurn(turn); err != nil {
		t.Fatal(err)
	}
	n := queryInt(t, db, "SELECT count(*) FROM transcript_events")
	res, err := w.AppendTurn(turn)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Already {
		t.Fatal("a retry appended again")
	}
	if m := queryInt(t, db, "SELECT count(*) FROM transcript_events"); m != n {
		t.Fatalf("%d events after the retry, %d before", m, n)
	}
}

func TestAppendHeaderOnEmptyChild(t *testing.T) {
	state := copyState(t)
	w := openWriter(t, state, "main")
	db := rawDB(t, w.Path())
	c, err := w.CreateChild(Child{ParentKey: mainKey, RequesterAgent: "main", Label: "kid"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.AppendTurn(Turn{SessionKey: c.Key, IdempotencyKey: "sessions:k1", Cwd: "/work", Messages: []json.RawMessage{userMsg("task"), assistantMsg("done")}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Header || res.FirstSeq != 0 || res.LastSeq != 2 || !res.Indexed {
		t.Fatalf("result %+v", res)
	}
	h := queryString(t, db, "SELECT event_json FROM transcript_events WHERE session_id = ? AND seq = 0", c.SessionID)
	if gjson.Get(h, "type").String() != "session" || gjson.Get(h, "version").Int() != 4 || gjson.Get(h, "id").String() != c.SessionID || gjson.Get(h, "cwd").String() != "/work" {
		t.Fatalf("header %s", h)
	}
	if p := queryString(t, db, "SELECT parent_id FROM transcript_event_identities WHERE session_id = ? AND seq = 1", c.SessionID); p != "" {
		t.Fatalf("first message parent %q, want null", p)
	}
	if n := queryInt(t, db, "SELECT active_event_count FROM session_transcript_index_state WHERE session_id = ? AND needs_rebuild = 0 AND indexed_seq = 2", c.SessionID); n != 2 {
		t.Fatalf("active_event_count %d", n)
	}
	checkClean(t, db)
}

func TestCreateChild(t *testing.T) {
	state := copyState(t)
	w := openWriter(t, state, "main")
	db := rawDB(t, w.Path())
	c, err := w.CreateChild(Child{ParentKey: mainKey, RequesterAgent: "main", Label: "  worker one  "})
	if err != nil {
		t.Fatal(err)
	}
	e := queryString(t, db, "SELECT entry_json FROM session_nodes WHERE session_key = ?", c.Key)
	for k, want := range map[string]string{"sessionId": c.SessionID, "createdVia": "spawn", "spawnedBy": mainKey, "parentSessionKey": mainKey,
		"completionOwnerSessionKey": mainKey, "label": "worker one", "createdActor.type": "agent", "createdActor.id": "main", "delivery.kind": "none"} {
		if got := gjson.Get(e, k).String(); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if gjson.Get(e, "spawnDepth").Int() != 1 || gjson.Get(e, "lifecycleRevision").String() == "" || gjson.Get(e, "updatedAt").Int() != c.CreatedAt {
		t.Fatalf("entry %s", e)
	}
	var via, spawned, parent, label string
	if err := db.QueryRow("SELECT created_via, spawned_by, parent_session_key, label FROM session_nodes WHERE session_key = ?", c.Key).Scan(&via, &spawned, &parent, &label); err != nil {
		t.Fatal(err)
	}
	if via != "spawn" || spawned != mainKey || parent != mainKey || label != "worker one" {
		t.Fatalf("columns %s %s %s %s", via, spawned, parent, label)
	}
	if got := queryString(t, db, "SELECT display_name FROM session_windows WHERE session_id = ? AND session_key = ? AND session_entry_provenance = 1", c.SessionID, c.Key); got != "worker one" {
		t.Fatalf("window display_name %q", got)
	}
	checkClean(t, db)
	// the label is taken now; a grandchild is depth 2
	_, err = w.CreateChild(Child{ParentKey: mainKey, RequesterAgent: "main", Label: "worker one"})
	wantCode(t, err, apperr.CodeState)
	g, err := w.CreateChild(Child{ParentKey: c.Key, RequesterAgent: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if d := queryInt(t, db, "SELECT json_extract(entry_json, '$.spawnDepth') FROM session_nodes WHERE session_key = ?", g.Key); d != 2 {
		t.Fatalf("grandchild depth %d", d)
	}
}

func TestPatchEntry(t *testing.T) {
	state := copyState(t)
	w := openWriter(t, state, "main")
	db := rawDB(t, w.Path())
	other := "agent:main:cron:peer-job-1"
	lbl, pol := "standup", "DENY"
	if _, err := w.PatchEntry(mainKey, Patch{Label: &lbl, SendPolicy: &pol}); err != nil {
		t.Fatal(err)
	}
	e := queryString(t, db, "SELECT entry_json FROM session_nodes WHERE session_key = ?", mainKey)
	if gjson.Get(e, "label").String() != "standup" || gjson.Get(e, "sendPolicy").String() != "deny" {
		t.Fatalf("entry %s", e)
	}
	if queryString(t, db, "SELECT label FROM session_nodes WHERE session_key = ?", mainKey) != "standup" {
		t.Fatal("label column")
	}
	// same label on another session: refused, nothing changed
	before := queryString(t, db, "SELECT entry_json FROM session_nodes WHERE session_key = ?", other)
	_, err := w.PatchEntry(other, Patch{Label: &lbl})
	wantCode(t, err, apperr.CodeState)
	if queryString(t, db, "SELECT entry_json FROM session_nodes WHERE session_key = ?", other) != before {
		t.Fatal("a refused patch changed the entry")
	}
	bad := "sometimes"
	_, err = w.PatchEntry(other, Patch{SendPolicy: &bad})
	wantCode(t, err, apperr.CodeUsage)
	long := strings.Repeat("x", 513)
	_, err = w.PatchEntry(other, Patch{Label: &long})
	wantCode(t, err, apperr.CodeUsage)
	// clearing, archiving
	empty := ""
	yes := true
	if _, err := w.PatchEntry(mainKey, Patch{Label: &empty, SendPolicy: &empty, Archived: &yes}); err != nil {
		t.Fatal(err)
	}
	e = queryString(t, db, "SELECT entry_json FROM session_nodes WHERE session_key = ?", mainKey)
	if gjson.Get(e, "label").Exists() || gjson.Get(e, "sendPolicy").Exists() || gjson.Get(e, "archiveReason").String() != "manual" {
		t.Fatalf("entry %s", e)
	}
	if queryInt(t, db, "SELECT archived_at FROM session_nodes WHERE session_key = ?", mainKey) != gjson.Get(e, "archivedAt").Int() {
		t.Fatal("archived_at not mirrored")
	}
	_, err = w.PatchEntry("agent:main:nope", Patch{Label: &lbl})
	wantCode(t, err, apperr.CodeNotFound)
	checkClean(t, db)
}

// setUserVersion writes a copy's user_version, as another OpenClaw would.
func setUserVersion(t *testing.T, p string, v int) {
	db := rawDB(t, p)
	mustExec(t, db, "PRAGMA user_version = "+strconv.Itoa(v))
	mustExec(t, db, "PRAGMA wal_checkpoint(TRUNCATE)")
	db.Close()
	os.Remove(p + "-wal")
	os.Remove(p + "-shm")
}

func TestRefuseOtherSchemaVersions(t *testing.T) {
	for _, v := range []int{22, 24} {
		t.Run(strconv.Itoa(v), func(t *testing.T) {
			state := copyState(t)
			p := Path(state, "main")
			setUserVersion(t, p, v)
			before := fileHash(t, p)
			_, err := Open(state, "main", Options{})
			wantCode(t, err, apperr.CodeState)
			if !strings.Contains(err.Error(), "schema "+strconv.Itoa(v)) || !strings.Contains(err.Error(), "schema 23") {
				t.Fatalf("error does not name both versions: %v", err)
			}
			if fileHash(t, p) != before {
				t.Fatal("the refused database changed")
			}
			for _, side := range []string{"-wal", "-shm"} {
				if _, err := os.Stat(p + side); err == nil {
					t.Fatalf("a %s was created beside the refused database", side)
				}
			}
		})
	}
}

func TestRefuseSchemaDrift(t *testing.T) {
	cases := map[string]string{
		"dropped index":   "DROP INDEX idx_agent_session_nodes_label",
		"foreign trigger": "CREATE TRIGGER x_after AFTER INSERT ON transcript_events BEGIN SELECT 1; END",
		"changed trigger": "DROP TRIGGER session_nodes_entry_valid_after_insert",
		"meta row":        "UPDATE schema_meta SET schema_version = 22 WHERE meta_key = 'primary'",
		"referencing tbl": "CREATE TABLE x_child(k TEXT REFERENCES session_nodes(session_key))",
	}
	for name, ddl := range cases {
		t.Run(name, func(t *testing.T) {
			state := copyState(t)
			p := Path(state, "main")
			db := rawDB(t, p)
			mustExec(t, db, ddl)
			mustExec(t, db, "PRAGMA wal_checkpoint(TRUNCATE)")
			db.Close()
			before := fileHash(t, p)
			_, err := Open(state, "main", Options{})
			wantCode(t, err, apperr.CodeState)
			if fileHash(t, p) != before {
				t.Fatal("the refused database changed")
			}
		})
	}
	// wrong agent
	state := copyState(t)
	_, err := Open(state, "ops", Options{})
	if err != nil {
		t.Fatalf("ops: %v", err)
	}
	if err := os.Rename(Path(state, "ops"), Path(state, "main")); err != nil {
		t.Fatal(err)
	}
	_, err = Open(state, "main", Options{})
	wantCode(t, err, apperr.CodeState)
	_, err = Open(state, "ops", Options{})
	wantCode(t, err, apperr.CodeState) // missing
}

func TestRefuseWhenOpenClawHoldsState(t *testing.T) {
	state := copyState(t)
	dir := LockDir(state)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, "gateway.state.lock")
	// a live pid (ours) with the role OpenClaw writes
	body := fmt.Sprintf(`{"pid":%d,"createdAt":"2026-11-23T00:00:00.000Z","configPath":"/x/openclaw.json","role":"gateway"}`, os.Getpid())
	if err := os.WriteFile(lock, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	before := fileHash(t, Path(state, "main"))
	_, err := Open(state, "main", Options{})
	wantCode(t, err, apperr.CodeState)
	if !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) || !strings.Contains(err.Error(), "--gateway") {
		t.Fatalf("refusal does not name the pid and --gateway: %v", err)
	}
	// a start time that is not this process's: a reused pid, not OpenClaw
	body = fmt.Sprintf(`{"pid":%d,"createdAt":"x","configPath":"/x","startTime":1}`, os.Getpid())
	if err := os.WriteFile(lock, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := Open(state, "main", Options{})
	if err != nil {
		t.Fatalf("a lock of another process incarnation refused: %v", err)
	}
	w.Close()
	// a dead pid: stale, ignored; the lock file is left alone
	body = `{"pid":2147483600,"createdAt":"x","configPath":"/x"}`
	if err := os.WriteFile(lock, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err = Open(state, "main", Options{})
	if err != nil {
		t.Fatalf("a stale lock refused: %v", err)
	}
	w.Close()
	if data, _ := os.ReadFile(lock); string(data) != body {
		t.Fatal("the lock file was changed")
	}
	if fileHash(t, Path(state, "main")) != before {
		t.Fatal("the database changed")
	}
	// a live maintenance lease in the state database
	sdb := rawDB(t, filepath.Join(state, "state", "openclaw.sqlite"))
	if queryInt(t, sdb, "SELECT count(*) FROM sqlite_master WHERE name = 'state_leases'") == 0 {
		t.Skip("fixture state database has no state_leases table")
	}
	// an OpenClaw process that has this database open (its lease row)
	abs, _ := filepath.Abs(Path(state, "main"))
	mustExec(t, sdb, "INSERT INTO agent_database_leases(lease_id, agent_id, path, owner_pid, owner_start_time, opened_at) VALUES ('l1', 'main', ?, ?, NULL, 0)", abs, os.Getpid())
	_, err = Open(state, "main", Options{})
	wantCode(t, err, apperr.CodeState)
	mustExec(t, sdb, "UPDATE agent_database_leases SET owner_pid = 2147483600")
	if w, err = Open(state, "main", Options{}); err != nil {
		t.Fatalf("a dead lease owner refused: %v", err)
	}
	w.Close()
	mustExec(t, sdb, "INSERT INTO state_leases(scope, lease_key, owner, expires_at, created_at, updated_at) VALUES (?, 'global', 'doctor', ?, 0, 0)", maintenanceScope, time.Now().Add(time.Hour).UnixMilli())
	sdb.Close()
	_, err = Open(state, "main", Options{})
	wantCode(t, err, apperr.CodeState)
	if !strings.Contains(err.Error(), "maintenance") {
		t.Fatalf("refusal does not name the maintenance lease: %v", err)
	}
}

func TestRefuseBusySessions(t *testing.T) {
	state := copyState(t)
	w := openWriter(t, state, "main")
	db := rawDB(t, w.Path())
	turn := func(key string) Turn {
		return Turn{SessionKey: key, IdempotencyKey: "sessions:" + key, Messages: []json.RawMessage{userMsg("x")}}
	}
	setEntry := func(key, path string, v any) {
		raw, _ := json.Marshal(v)
		mustExec(t, db, "UPDATE session_nodes SET entry_json = json_set(entry_json, ?, json(?)) WHERE session_key = ?", path, string(raw), key)
		mustExec(t, db, "UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?", key)
	}
	k1, k2, k3 := "agent:main:cron:peer-job-1", "agent:main:hook:github:push-42", "agent:main:telegram:group:-100123"
	setEntry(k1, "$.lifecycleRunId", "run-1")
	_, err := w.AppendTurn(turn(k1))
	wantCode(t, err, apperr.CodeState)
	setEntry(k2, "$.acp", map[string]any{"backend": "x"})
	_, err = w.AppendTurn(turn(k2))
	wantCode(t, err, apperr.CodeState)
	setEntry(k3, "$.agentHarnessId", "codex")
	_, err = w.AppendTurn(turn(k3))
	wantCode(t, err, apperr.CodeState)
	// an entry OpenClaw has not certified
	mustExec(t, db, "UPDATE session_nodes SET entry_valid = 0 WHERE session_key = ?", mainKey)
	_, err = w.AppendTurn(turn(mainKey))
	wantCode(t, err, apperr.CodeState)
	mustExec(t, db, "UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?", mainKey)
	// a leaf control as the last event
	sid := queryString(t, db, "SELECT current_session_id FROM session_nodes WHERE session_key = ?", mainKey)
	seq := queryInt(t, db, "SELECT max(seq) + 1 FROM transcript_events WHERE session_id = ?", sid)
	mustExec(t, db, "INSERT INTO transcript_events(session_id, seq, event_json, created_at) VALUES (?, ?, ?, 0)", sid, seq, `{"type":"leaf","id":"l1","parentId":null,"targetId":null}`)
	mustExec(t, db, "INSERT INTO transcript_event_identities(session_id, event_id, seq, event_type, created_at) VALUES (?, 'l1', ?, 'leaf', 0)", sid, seq)
	n := queryInt(t, db, "SELECT count(*) FROM transcript_events")
	_, err = w.AppendTurn(turn(mainKey))
	wantCode(t, err, apperr.CodeState)
	if queryInt(t, db, "SELECT count(*) FROM transcript_events") != n {
		t.Fatal("a refused append wrote events")
	}
}

func TestLockTimeout(t *testing.T) {
	state := copyState(t)
	w, err := Open(state, "main", Options{LockTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	other := rawDB(t, w.Path())
	tx, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("UPDATE session_key_contract SET updated_at = updated_at"); err != nil {
		t.Fatal(err)
	}
	lbl := "x"
	_, err = w.PatchEntry(mainKey, Patch{Label: &lbl})
	wantCode(t, err, apperr.CodeLock)
	tx.Rollback()
	if _, err := w.PatchEntry(mainKey, Patch{Label: &lbl}); err != nil {
		t.Fatal(err)
	}
}

// TestNoLegacyFiles: writes leave no sessions.json or JSONL behind.
func TestNoLegacyFiles(t *testing.T) {
	state := copyState(t)
	w := openWriter(t, state, "main")
	c, err := w.CreateChild(Child{ParentKey: mainKey, RequesterAgent: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AppendTurn(Turn{SessionKey: c.Key, IdempotencyKey: "sessions:x", Messages: []json.RawMessage{userMsg("hi")}}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error {
		if err == nil && (strings.HasSuffix(p, ".jsonl") || filepath.Base(p) == "sessions.json") {
			t.Errorf("legacy file %s", p)
		}
		return nil
	})
}

var _ = sql.ErrNoRows

// sideFiles reports the size of p's -wal and -shm, -1 when absent.
func sideFiles(p string) (wal, shm int64) {
	wal, shm = -1, -1
	if fi, err := os.Stat(p + "-wal"); err == nil {
		wal = fi.Size()
	}
	if fi, err := os.Stat(p + "-shm"); err == nil {
		shm = fi.Size()
	}
	return wal, shm
}

// leaveIdleWAL leaves p as OpenClaw 2026.9.6 leaves a database after any
// command: an empty -wal and a -shm beside it, nobody connected.
func leaveIdleWAL(t *testing.T, p string) {
	t.Helper()
	db := rawDB(t, p)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "SELECT count(*) FROM session_nodes"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "PRAGMA journal_size_limit = 0"); err != nil {
		t.Fatal(err)
	}
	if err := c.Raw(func(dc any) error {
		_, err := dc.(sqlite.FileControl).FileControlPersistWAL("main", 1)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	db.Close()
	if wal, shm := sideFiles(p); wal != 0 || shm <= 0 {
		t.Fatalf("setup: -wal %d bytes, -shm %d bytes", wal, shm)
	}
}

// Closing the writer keeps an idle database's empty -wal and its -shm
// (SQLite's last-connection close would checkpoint and delete both), with
// the write checkpointed into the main file (the -wal is empty again);
// a database that had neither gets neither left behind.
func TestCloseKeepsSideFilesAsFound(t *testing.T) {
	for _, had := range []bool{true, false} {
		t.Run(fmt.Sprintf("had=%v", had), func(t *testing.T) {
			state := copyState(t)
			p := Path(state, "main")
			if had {
				leaveIdleWAL(t, p)
			}
			w, err := Open(state, "main", Options{})
			if err != nil {
				t.Fatal(err)
			}
			lbl := "kept side files"
			if _, err := w.PatchEntry(mainKey, Patch{Label: &lbl}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			wal, shm := sideFiles(p)
			if had && (wal != 0 || shm <= 0) {
				t.Fatalf("after close: -wal %d bytes, -shm %d bytes; want an empty -wal and the -shm kept", wal, shm)
			}
			if !had && (wal != -1 || shm != -1) {
				t.Fatalf("after close: -wal %d bytes, -shm %d bytes; want neither", wal, shm)
			}
			// The label is in the main file: read it immutable, ignoring any -wal.
			u := "file:" + filepath.ToSlash(p) + "?immutable=1"
			db, err := sql.Open("sqlite", u)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if got := queryString(t, db, "SELECT label FROM session_nodes WHERE session_key = ?", mainKey); got != lbl {
				t.Fatalf("label in the main file %q, want %q", got, lbl)
			}
		})
	}
}
