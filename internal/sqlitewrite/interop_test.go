//go:build interop

package sqlitewrite

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/testutil/peertest"
	"github.com/openclaw/sessions/internal/transcript"
)

// peer96 is the openclaw-peer script with OpenClaw 2026.9.6 installed, or
// skips the test with one line.
func peer96(t *testing.T) string {
	p := os.Getenv(peertest.Env)
	if p == "" {
		t.Skip(peertest.Env + " not set (run: make interop)")
	}
	out, err := exec.Command(p, "install", "--version", "2026.9.6").CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 75 {
		t.Skip("OpenClaw 2026.9.6 peer unavailable: " + peertest.LastLine(string(out)))
	}
	if err != nil {
		t.Fatalf("openclaw-peer install --version 2026.9.6: %v\n%s", err, out)
	}
	return p
}

// oc96 runs the real `openclaw ARGS` of 2026.9.6 on state, isolated in home.
func oc96(t *testing.T, p, home, state string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(p, append([]string{"run", "--version", "2026.9.6", "--home", home, "--state", state, "--cwd", home, "--timeout", "300", "--"}, args...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("openclaw %s: %v", strings.Join(args, " "), err)
	}
	return o.String(), e.String(), code
}

// interopState copies the 2026.9.6 fixture with its log moved into the copy.
func interopState(t *testing.T) (state, home string) {
	state = copyState(t)
	home = filepath.Join(filepath.Dir(state), "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	peertest.EditConfig(t, state, func(cfg map[string]any) {
		cfg["logging"] = map[string]any{"level": "info", "file": filepath.Join(filepath.Dir(state), "openclaw.log")}
	})
	return state, home
}

// startLLM points the mock provider at a fresh mock LLM (it lives 300 s:
// started right before the turns that need it) and returns its log.
func startLLM(t *testing.T, p, state string) string {
	url, log := peertest.StartMockLLM(t, p)
	peertest.SetProviderURL(t, state, "mock", url)
	return log
}

const uniqueWord = "zorblatfrumious"

// TestInterop96 writes a 2026.9.6 state dir the real 2026.9.6 generated —
// a turn appended to agent:main:main, a spawned child with a label and a
// turn of events over 1 KiB, a label/sendPolicy patch — and proves the real
// 2026.9.6 reads it as its own: `openclaw sessions --json --all-agents`
// lists every key with label, spawnedBy and updatedAt; `openclaw doctor
// --lint --json` (read-only) finds nothing an untouched copy does not;
// integrity_check and foreign_key_check are clean; `openclaw agent --local
// --session-key` continues both sessions (its user event parented on our
// assistant event, seq contiguous, the mock LLM's request carrying our
// messages, zstd rows after ours for the long turn); its gateway's
// sessions.search finds a word we appended.
func TestInterop96(t *testing.T) {
	p := peer96(t)
	state, home := interopState(t)

	// Baseline doctor findings of an untouched copy, run meanwhile.
	var baseline string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		bs := copyState(t)
		bh := filepath.Join(filepath.Dir(bs), "home")
		os.MkdirAll(bh, 0o755)
		baseline, _, _ = oc96(t, p, bh, bs, "doctor", "--lint", "--json")
	}()

	w, err := Open(state, "main", Options{})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := w.AppendTurn(Turn{SessionKey: mainKey, IdempotencyKey: "sessions:interop-1", Interaction: true,
		Messages: []json.RawMessage{userMsg("Remember the word " + uniqueWord + ", please."), assistantMsg("I will remember " + uniqueWord + ".")}})
	if err != nil {
		t.Fatal(err)
	}
	child, err := w.CreateChild(Child{ParentKey: mainKey, RequesterAgent: "main", Label: "sqlwrite child"})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 40) // ~1.8 KiB
	cturn, err := w.AppendTurn(Turn{SessionKey: child.Key, IdempotencyKey: "sessions:interop-2", Cwd: home,
		Messages: []json.RawMessage{userMsg("Task: " + long), assistantMsg("Done: " + long)}})
	if err != nil {
		t.Fatal(err)
	}
	patched := "agent:main:telegram:group:-100123"
	lbl, pol := "team room", "deny"
	if _, err := w.PatchEntry(patched, Patch{Label: &lbl, SendPolicy: &pol}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	db := rawDB(t, Path(state, "main"))
	checkClean(t, db)
	keys := map[string]bool{}
	rows, err := db.Query("SELECT session_key FROM session_nodes")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		rows.Scan(&k)
		keys[k] = true
	}
	rows.Close()
	db.Close()

	// 1. openclaw sessions lists every key, with our fields
	out, serr, code := oc96(t, p, home, state, "sessions", "--json", "--all-agents", "--limit", "all")
	if code != 0 {
		t.Fatalf("openclaw sessions exited %d\n%s", code, serr)
	}
	listed := map[string]gjson.Result{}
	for _, s := range gjson.Get(out, "sessions").Array() {
		listed[s.Get("key").String()] = s
	}
	for k := range keys {
		if _, ok := listed[k]; !ok {
			t.Errorf("openclaw sessions does not list %s", k)
		}
	}
	c := listed[child.Key]
	if c.Get("label").String() != "sqlwrite child" || c.Get("spawnedBy").String() != mainKey || c.Get("updatedAt").Int() != cturn.UpdatedAt {
		t.Errorf("child as listed (want updatedAt %d): %s", cturn.UpdatedAt, c.Raw)
	}
	if l := listed[patched]; l.Get("label").String() != "team room" || l.Get("updatedAt").Int() < child.CreatedAt {
		t.Errorf("patched session as listed: %s", l.Raw)
	}
	if m := listed[mainKey]; m.Get("updatedAt").Int() != turn.UpdatedAt {
		t.Errorf("main updatedAt %d, want %d", m.Get("updatedAt").Int(), turn.UpdatedAt)
	}
	if strings.Contains(serr, "SESSION_CANONICAL_KEY_MIGRATION_REQUIRED") || strings.Contains(serr, "doctor --fix") {
		t.Errorf("openclaw sessions complains:\n%s", serr)
	}

	// 2. doctor (read-only) finds nothing an untouched copy does not
	lint, _, _ := oc96(t, p, home, state, "doctor", "--lint", "--json")
	wg.Wait()
	findings := func(doc string) map[string]bool {
		m := map[string]bool{}
		if !gjson.Valid(doc) {
			t.Fatalf("doctor --lint --json printed no JSON:\n%s", doc)
		}
		for _, f := range gjson.Get(doc, "findings").Array() {
			m[f.Get("checkId").String()+": "+f.Get("requirement").String()] = true
		}
		return m
	}
	base := findings(baseline)
	for f := range findings(lint) {
		if !base[f] {
			t.Errorf("doctor finds after our writes: %s\n%s", f, lint)
		}
	}

	// 3. continuation of the session we appended to
	llmLog := startLLM(t, p, state)
	db = rawDB(t, Path(state, "main"))
	if pol := queryString(t, db, "SELECT json_extract(entry_json, '$.sendPolicy') FROM session_nodes WHERE session_key = ?", patched); pol != "deny" {
		t.Errorf("sendPolicy after OpenClaw's reads: %q", pol)
	}
	sid := turn.SessionID
	before := queryInt(t, db, "SELECT max(seq) FROM transcript_events WHERE session_id = ?", sid)
	db.Close()
	_, serr, code = oc96(t, p, home, state, "agent", "--local", "--session-key", mainKey, "--message", "What word did I ask you to remember?", "--json")
	if code != 0 {
		t.Fatalf("openclaw agent --local exited %d\n%s", code, serr)
	}
	checkContinuation(t, Path(state, "main"), sid, turn.EventIDs[1], before, false)
	reqs := peertest.ReadMockLog(t, llmLog)
	last, _ := json.Marshal(reqs[len(reqs)-1].Request.Messages)
	if !strings.Contains(string(last), "Remember the word "+uniqueWord) || !strings.Contains(string(last), "I will remember "+uniqueWord) {
		t.Errorf("the model's request does not carry our turn:\n%s", last)
	}
	// our ContextMessages of the transcript as it was is the history
	// OpenClaw itself sent the model for that turn
	checkContextLikeOpenClaw(t, Path(state, "main"), sid, before, reqs[len(reqs)-1])

	// 4. the same on the child with events over 1 KiB: OpenClaw writes zstd rows after ours
	db = rawDB(t, Path(state, "main"))
	before = queryInt(t, db, "SELECT max(seq) FROM transcript_events WHERE session_id = ?", child.SessionID)
	db.Close()
	_, serr, code = oc96(t, p, home, state, "agent", "--local", "--session-key", child.Key, "--message", "Again: "+long, "--json")
	if code != 0 {
		t.Fatalf("openclaw agent --local (child) exited %d\n%s", code, serr)
	}
	checkContinuation(t, Path(state, "main"), child.SessionID, cturn.EventIDs[1], before, true)
	reqs = peertest.ReadMockLog(t, llmLog)
	last, _ = json.Marshal(reqs[len(reqs)-1].Request.Messages)
	if !strings.Contains(string(last), "Done: The quick brown fox") {
		t.Errorf("the model's request does not carry our child turn:\n%.2000s", last)
	}

	// 5. OpenClaw's transcript search (its gateway's sessions.search) finds our word
	gwHome := filepath.Join(filepath.Dir(state), "gw")
	os.MkdirAll(gwHome, 0o755)
	if out, err := exec.Command(p, "gateway", "start", "--version", "2026.9.6", "--home", gwHome, "--state", state, "--max-seconds", "240").CombinedOutput(); err != nil {
		t.Fatalf("gateway start: %v\n%s", err, out)
	}
	defer exec.Command(p, "gateway", "stop", "--home", gwHome).Run()
	// a running gateway holds the state dir: we refuse to write now
	if _, err := Open(state, "main", Options{}); err == nil || !strings.Contains(err.Error(), "--gateway") {
		t.Errorf("Open beside a live gateway: %v", err)
	}
	res, err := exec.Command(p, "gateway", "call", "--home", gwHome, "sessions.search", "--params", `{"agentId":"main","sessionKeys":["`+mainKey+`"],"query":"`+uniqueWord+`"}`, "--json").CombinedOutput()
	if err != nil {
		t.Fatalf("sessions.search: %v\n%s", err, res)
	}
	found := false
	for _, h := range gjson.GetBytes(res, "results").Array() {
		if h.Get("messageId").String() == turn.EventIDs[0] || h.Get("messageId").String() == turn.EventIDs[1] {
			found = true
		}
	}
	if !found {
		t.Errorf("sessions.search does not find our message ids %v:\n%s", turn.EventIDs, res)
	}
}

// checkContinuation: after OpenClaw's turn, its first new event that is a
// user message has our assistant as parent, seq is contiguous, identities
// cover every event with an id, the projection is current; with zstd, at
// least one of OpenClaw's new rows is zstd-compressed.
func checkContinuation(t *testing.T, dbPath, sid, ourAssistant string, before int64, wantZstd bool) {
	t.Helper()
	db := rawDB(t, dbPath)
	defer db.Close()
	checkClean(t, db)
	var seqs []int64
	rows, err := db.Query("SELECT seq FROM transcript_events WHERE session_id = ? ORDER BY seq", sid)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s int64
		rows.Scan(&s)
		seqs = append(seqs, s)
	}
	rows.Close()
	for i, s := range seqs {
		if s != int64(i) {
			t.Fatalf("seq %d at position %d: not contiguous", s, i)
		}
	}
	if int64(len(seqs))-1 <= before {
		t.Fatal("OpenClaw appended nothing")
	}
	var userParent string
	err = db.QueryRow(`SELECT coalesce(parent_id, '') FROM transcript_event_identities ti WHERE session_id = ? AND seq > ? AND event_type = 'message'
		AND (SELECT json_extract(coalesce(te.event_json, json_extract(te.navigation_json, '$.navigation')), '$.message.role') FROM transcript_events te WHERE te.session_id = ti.session_id AND te.seq = ti.seq) = 'user'
		ORDER BY seq LIMIT 1`, sid, before).Scan(&userParent)
	if err != nil {
		t.Fatalf("OpenClaw's new user event: %v", err)
	}
	// OpenClaw may put control events (model_change, custom …) between; the
	// chain from its user event must lead back to our assistant.
	chain := userParent
	for i := 0; i < 20 && chain != ourAssistant && chain != ""; i++ {
		chain = queryString(t, db, "SELECT coalesce(parent_id, '') FROM transcript_event_identities WHERE session_id = ? AND event_id = ? AND seq > ?", sid, chain, before)
	}
	if chain != ourAssistant {
		t.Fatalf("OpenClaw's user event (parent %s) does not descend from our assistant %s", userParent, ourAssistant)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM transcript_events te WHERE session_id = ? AND json_extract(coalesce(event_json, json_extract(navigation_json, '$.navigation')), '$.id') IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM transcript_event_identities ti WHERE ti.session_id = te.session_id AND ti.seq = te.seq)`, sid); n != 0 {
		t.Errorf("%d events with ids have no identity row", n)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM session_transcript_index_state WHERE session_id = ? AND needs_rebuild = 0 AND indexed_seq = ?", sid, seqs[len(seqs)-1]); got != 1 {
		t.Errorf("the projection is not current after OpenClaw's turn")
	}
	if wantZstd {
		if n := queryInt(t, db, "SELECT count(*) FROM transcript_events WHERE session_id = ? AND seq > ? AND event_zstd IS NOT NULL", sid, before); n == 0 {
			t.Errorf("OpenClaw wrote no zstd row after ours")
		}
	}
}

// TestInterop96BesideEmbeddedAgent: while a real `openclaw agent --local`
// runs on one session of the main agent (it holds gateway.state.lock with
// role agent-embedded and agent_database_leases rows), Open goes through,
// a turn appended to another session and a patch are written, and a turn
// on the agent's own session is refused naming its pid; once it has
// exited, the database is clean and its session writable again.
func TestInterop96BesideEmbeddedAgent(t *testing.T) {
	p := peer96(t)
	state, home := interopState(t)
	theirs := "agent:main:cron:peer-job-1"
	// no mock LLM: the turn retries its provider for longer than we need
	cmd := exec.Command(p, "run", "--version", "2026.9.6", "--home", home, "--state", state, "--cwd", home, "--timeout", "150", "--",
		"agent", "--local", "--session-key", theirs, "--message", "hold the state dir")
	var agentOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &agentOut, &agentOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	defer func() { <-done }()
	lock := filepath.Join(LockDir(state), "gateway.state.lock")
	var pid int
	for deadline := time.Now().Add(120 * time.Second); time.Now().Before(deadline) && pid == 0; time.Sleep(200 * time.Millisecond) {
		var pl lockPayload
		if data, err := os.ReadFile(lock); err == nil && json.Unmarshal(data, &pl) == nil && pl.Role == RoleEmbedded {
			pid = pl.PID
		}
	}
	if pid == 0 {
		ents, _ := os.ReadDir(LockDir(state))
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		<-done
		t.Fatalf("openclaw agent --local took no gateway.state.lock (lock dir: %v)\n%s", names, agentOut.String())
	}
	w, err := Open(state, "main", Options{})
	if err != nil {
		t.Fatalf("Open beside a running openclaw agent --local (pid %d): %v", pid, err)
	}
	defer w.Close()
	if len(w.embedded) != 1 || w.embedded[0].PID != pid || w.embedded[0].SessionKey != theirs {
		t.Errorf("the embedded agent as found: %+v", w.embedded)
	}
	if _, err := w.AppendTurn(Turn{SessionKey: mainKey, IdempotencyKey: "sessions:beside-agent", Messages: []json.RawMessage{userMsg("beside"), assistantMsg("ok")}}); err != nil {
		t.Fatalf("append to another session beside the agent: %v", err)
	}
	lbl := "beside the agent"
	if _, err := w.PatchEntry("agent:main:telegram:group:-100123", Patch{Label: &lbl}); err != nil {
		t.Fatalf("patch beside the agent: %v", err)
	}
	select {
	case <-done:
		t.Skip("openclaw agent --local ended before the refusal could be checked")
	default:
	}
	_, err = w.AppendTurn(Turn{SessionKey: theirs, IdempotencyKey: "sessions:its-session", Messages: []json.RawMessage{userMsg("no"), assistantMsg("no")}})
	if err == nil || !strings.Contains(err.Error(), "pid "+strconv.Itoa(pid)) {
		t.Fatalf("append to the agent's own session (pid %d): %v", pid, err)
	}
	<-done
	if _, err := w.AppendTurn(Turn{SessionKey: theirs, IdempotencyKey: "sessions:after-agent", Messages: []json.RawMessage{userMsg("after"), assistantMsg("ok")}}); err != nil {
		t.Fatalf("append after the agent exited: %v", err)
	}
	checkClean(t, rawDB(t, w.Path()))
}

// checkContextLikeOpenClaw: ContextMessages over the session's events up to
// seq before gives, in order, the user and assistant messages of the
// model request OpenClaw 2026.9.6 made for its next turn (its own new
// user message and its internal context blocks aside; OpenClaw may wrap a
// user text, so each of ours is contained in its counterpart).
func checkContextLikeOpenClaw(t *testing.T, dbPath, sid string, before int64, req peertest.MockRequest) {
	t.Helper()
	db, err := sqlitestore.Open(dbPath, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var events [][]byte
	err = db.Events(sid, transcript.Options{}.MaxLine(), func() { events = nil }, func(seq int64, data []byte, _ transcript.Status) {
		if seq <= before {
			events = append(events, append([]byte(nil), data...))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	text := func(c gjson.Result) string {
		if c.Type == gjson.String {
			return strings.TrimSpace(c.Str)
		}
		var parts []string
		c.ForEach(func(_, b gjson.Result) bool {
			if b.Get("type").String() == "text" {
				parts = append(parts, b.Get("text").String())
			}
			return true
		})
		return strings.TrimSpace(strings.Join(parts, "\n"))
	}
	var ours []string
	for _, m := range ContextMessages(events) {
		r := gjson.ParseBytes(m)
		if role := r.Get("role").String(); role == "user" || role == "assistant" {
			if s := text(r.Get("content")); s != "" {
				ours = append(ours, role+": "+s)
			}
		}
	}
	var theirs []string
	for _, m := range req.Request.Messages {
		raw, _ := json.Marshal(m)
		r := gjson.ParseBytes(raw)
		role := r.Get("role").String()
		s := text(r.Get("content"))
		if role != "user" && role != "assistant" || s == "" || strings.HasPrefix(s, "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>") {
			continue
		}
		theirs = append(theirs, role+": "+s)
	}
	if len(theirs) > 0 {
		theirs = theirs[:len(theirs)-1] // its new user message
	}
	t.Logf("context: %d user/assistant messages, ours and OpenClaw's alike", len(ours))
	if len(ours) < 2 {
		t.Fatalf("context: %d messages, not even our turn: %q", len(ours), ours)
	}
	if len(ours) != len(theirs) {
		t.Fatalf("context: ours %d user/assistant messages, OpenClaw's request %d\nours: %q\ntheirs: %q", len(ours), len(theirs), ours, theirs)
	}
	for i := range ours {
		r, o := strings.SplitN(theirs[i], ": ", 2), strings.SplitN(ours[i], ": ", 2)
		if r[0] != o[0] || !strings.Contains(r[1], o[1]) {
			t.Errorf("context message %d: ours %.200q, OpenClaw's %.200q", i, ours[i], theirs[i])
		}
	}
}
