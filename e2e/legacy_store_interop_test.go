//go:build interop

// A legacy sessions.json beside the real 2026.9.6 SQLite store: what the
// real gateway does on start, and `sessions doctor --fix` before a start.
// Users of 2026.8.x report that its gateway refuses to start beside one
// ("Legacy session store requires migration", openclaw/openclaw#133992,
// #134873). The real 2026.9.6 does not: started beside a sessions.json
// whose every entry its database holds, it checks the entries, archives the
// file under agents/<id>/session-sqlite-import-archive/ and serves (its
// gateway.out: "Session SQLite: Legacy entries: 4; SQLite entries: 4").
// So doctor reports it as a warning, not an error. With doctor --fix first
// the file is moved aside to sessions.json.migrated-<time>.bak and the
// gateway starts with nothing left to import.
// Run: make interop (or, from the repository root,
// OPENCLAW_PEER=$PWD/../shared/peer/openclaw-peer go test -tags interop
// -run TestInteropLegacyStore -count=1 -timeout 20m -v ./e2e/; each test
// starts one gateway, a minute or two on an idle machine).

package e2e_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// plantLegacyStore writes agents/main/sessions/sessions.json with every
// session of the main agent's database (key, sessionId, updatedAt): an
// upgrade's leftover that holds nothing the database lacks.
func plantLegacyStore(t *testing.T, state string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT session_key, current_session_id, json_extract(entry_json, '$.updatedAt') FROM session_nodes WHERE entry_valid = 1")
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
	if len(st) == 0 {
		t.Fatal("no sessions in the fixture's main database")
	}
	p := filepath.Join(state, "agents", "main", "sessions", "sessions.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(st, "", "  ")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// doctorJSON runs `sessions doctor --json [ARGS]` on state and returns the
// document and the exit code.
func doctorJSON(t *testing.T, bin, state string, args ...string) (gjson.Result, int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--state-dir", state, "doctor", "--json"}, args...)...)
	cmd.Env = append(os.Environ(), "OPENCLAW_SESSION_KEY=", "OPENCLAW_STATE_DIR=", "OPENCLAW_GATEWAY_URL=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if !gjson.ValidBytes(out) {
		t.Fatalf("doctor: not JSON (exit %d): %s%s", code, out, stderr.Bytes())
	}
	return gjson.ParseBytes(out), code
}

func legacyFinding(doc gjson.Result) gjson.Result {
	return doc.Get(`findings.#(check=="sqlite.legacy-store")`)
}

// TestInteropLegacyStoreGateway records what the real 2026.9.6 gateway does
// when it starts beside a sessions.json whose every entry its database
// holds: it starts, and archives the file itself.
func TestInteropLegacyStoreGateway(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	peertest.InstallVersion(t, p, "2026.9.6")
	bin := peertest.BuildSessions(t)
	state, _ := copyState96(t, t.TempDir(), "state", "home")
	legacy := plantLegacyStore(t, state)
	doc, code := doctorJSON(t, bin, state)
	f := legacyFinding(doc)
	if code != 1 || f.Get("severity").Str != "warning" || !f.Get("fixable").Bool() || f.Get("path").Str != legacy {
		t.Fatalf("doctor before any start: exit %d, finding %s", code, f.Raw)
	}
	gw, out := startGateway96(t, p, state)
	if gw == nil {
		t.Fatalf("the real 2026.9.6 gateway refused beside the planted sessions.json (doctor calls it a warning: make it an error):\n%s", out)
	}
	if _, err := os.Stat(legacy); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the real 2026.9.6 gateway started and left sessions.json in place (%v)", err)
	}
	archived, _ := filepath.Glob(filepath.Join(state, "agents", "main", "session-sqlite-import-archive", "legacy-store.sessions.json.imported-*"))
	t.Logf("real 2026.9.6 gateway beside a fully migrated sessions.json: started; archived to %v; its report: %q", archived,
		lineWith(out, "Legacy entries"))
	if len(archived) != 1 {
		t.Errorf("no archive of sessions.json under session-sqlite-import-archive/: %v", archived)
	}
	if doc, _ := doctorJSON(t, bin, state); legacyFinding(doc).Exists() {
		t.Errorf("doctor after the gateway archived it: %s", doc.Get("findings").Raw)
	}
}

// TestInteropLegacyStoreFix: sessions doctor --fix first moves the file
// aside, and the real gateway then starts with nothing to import.
func TestInteropLegacyStoreFix(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	peertest.InstallVersion(t, p, "2026.9.6")
	bin := peertest.BuildSessions(t)
	state, _ := copyState96(t, t.TempDir(), "state", "home")
	legacy := plantLegacyStore(t, state)
	before, _ := os.ReadFile(legacy)
	doc, code := doctorJSON(t, bin, state, "--fix")
	f := legacyFinding(doc)
	if code != 0 || !strings.HasPrefix(f.Get("fixed").Str, "moved to "+legacy+".migrated-") {
		t.Fatalf("doctor --fix: exit %d, %s", code, doc.Raw)
	}
	baks, _ := filepath.Glob(legacy + ".migrated-*.bak")
	if len(baks) != 1 {
		t.Fatalf("backups: %v", baks)
	}
	if b, _ := os.ReadFile(baks[0]); !bytes.Equal(b, before) {
		t.Error("the backup differs from the planted file")
	}
	gw, out := startGateway96(t, p, state)
	if gw == nil {
		t.Fatalf("gateway refused after doctor --fix:\n%s", out)
	}
	if m, _ := filepath.Glob(filepath.Join(state, "agents", "main", "session-sqlite-import-archive", "*")); len(m) != 0 {
		t.Errorf("the gateway still found a legacy store to import after doctor --fix: %v", m)
	}
	if _, err := os.Stat(baks[0]); err != nil {
		t.Errorf("the backup is gone after the gateway's start: %v", err)
	}
	var list struct {
		Sessions []struct{ Key string } `json:"sessions"`
	}
	lout := peertest.Sessions(t, bin, state, []string{"OPENCLAW_GATEWAY_TOKEN=" + gw.Token}, "--gateway", gw.URL, "list", "--json")
	if err := json.Unmarshal(lout, &list); err != nil || len(list.Sessions) < 4 {
		t.Errorf("the started gateway lists %d sessions (%v): %s", len(list.Sessions), err, lout)
	}
	// Beside the live gateway: no legacy store left to report.
	if doc, _ := doctorJSON(t, bin, state); legacyFinding(doc).Exists() {
		t.Errorf("doctor after --fix and a start: %s", doc.Get("findings").Raw)
	}
}

// startGateway96 starts the real 2026.9.6 gateway on state and returns it
// with everything its starts printed (gateway.out). A start that fails on
// the machine's load alone ("... did not become ready", its own 5 s
// deadlines) is tried once more; a refusal returns a nil gateway.
func startGateway96(t *testing.T, p, state string) (*peertest.Gateway, string) {
	t.Helper()
	var log strings.Builder
	for attempt := 1; ; attempt++ {
		home := t.TempDir()
		cmd := exec.Command(p, "gateway", "start", "--version", "2026.9.6", "--home", home, "--max-seconds", "1800", "--state", state)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		t.Cleanup(func() { _ = exec.Command(p, "gateway", "stop", "--home", home).Run() })
		gwOut, _ := os.ReadFile(filepath.Join(home, "peer-gateway", "gateway.out"))
		log.Write(gwOut)
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 75 {
			t.Skipf("openclaw-peer gateway start: %s", peertest.LastLine(stderr.String()))
		}
		if err == nil {
			var g peertest.Gateway
			if err := json.Unmarshal(out, &g); err != nil || g.URL == "" {
				t.Fatalf("openclaw-peer gateway start: unexpected output %q (%v)", out, err)
			}
			return &g, log.String()
		}
		switch {
		case strings.Contains(string(gwOut), "Legacy session store requires migration"):
			return nil, log.String()
		case attempt == 1 && strings.Contains(string(gwOut), "did not become ready"):
			t.Logf("gateway start failed on the machine's load, once more: %s", lineWith(string(gwOut), "did not become ready"))
			continue
		}
		t.Fatalf("openclaw-peer gateway start: %v\n%s%s", err, stderr.String(), gwOut)
	}
}

func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return strings.TrimSpace(strings.Trim(l, "│ "))
		}
	}
	return ""
}
