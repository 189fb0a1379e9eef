//go:build interop

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

	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// run96 runs the real `openclaw ARGS` of 2026.9.6 on state, isolated in a
// fresh home; stdout, and the exit code.
func run96(t *testing.T, p, state string, args ...string) (string, int) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(p, append([]string{"run", "--version", "2026.9.6", "--home", home, "--state", state, "--cwd", home, "--timeout", "300", "--"}, args...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("openclaw %s: %v", strings.Join(args, " "), err)
	}
	return o.String(), code
}

// keys96 is `openclaw sessions --json --all-agents` of 2026.9.6: key → sessionId.
func keys96(t *testing.T, p, state string) map[string]string {
	t.Helper()
	out, code := run96(t, p, state, "sessions", "--json", "--all-agents")
	if code != 0 {
		t.Fatalf("openclaw sessions --json --all-agents: exit %d\n%s", code, out)
	}
	m := map[string]string{}
	for _, s := range gjson.Get(out, "sessions").Array() {
		m[s.Get("key").Str] = s.Get("sessionId").Str
	}
	if len(m) == 0 {
		t.Fatalf("openclaw sessions listed nothing:\n%s", out)
	}
	return m
}

func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", name), dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestInteropSQLiteDelete: sessions delete and prune write a state the real
// 2026.9.6 generated directly (no OpenClaw running); the real `openclaw
// sessions --json --all-agents` no longer lists the deleted keys and lists
// the rest; `openclaw doctor --lint --json` finds nothing an untouched copy
// does not; integrity_check is clean.
func TestInteropSQLiteDelete(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	peertest.InstallVersion(t, p, "2026.9.6")
	bin := peertest.BuildSessions(t)
	state := copyFixture(t, "state-2026.9.6")
	untouched := copyFixture(t, "state-2026.9.6")
	before := keys96(t, p, state)
	peertest.Sessions(t, bin, state, nil, "delete", "agent:main:hook:github:push-42", "--json")
	pruned := peertest.Sessions(t, bin, state, nil, "prune", "--older-than", "1m", "--kinds", "cron", "--yes", "--json")
	if gjson.GetBytes(pruned, "count").Int() != 1 {
		t.Fatalf("prune: %s", pruned)
	}
	after := keys96(t, p, state)
	gone := map[string]bool{"agent:main:hook:github:push-42": true, "agent:main:cron:peer-job-1": true}
	for k, sid := range before {
		if gone[k] && after[k] != "" {
			t.Errorf("openclaw sessions still lists %s", k)
		}
		if !gone[k] && after[k] != sid {
			t.Errorf("openclaw sessions: %s has %q, want %q", k, after[k], sid)
		}
	}
	lint, _ := run96(t, p, state, "doctor", "--lint", "--json")
	base, _ := run96(t, p, untouched, "doctor", "--lint", "--json")
	findings := func(s string) map[string]bool {
		if !gjson.Valid(s) || !gjson.Get(s, "checksRun").Exists() {
			t.Fatalf("openclaw doctor --lint --json printed no report:\n%s", s)
		}
		m := map[string]bool{}
		for _, f := range gjson.Get(s, "findings").Array() {
			m[f.Get("checkId").Str+": "+f.Get("requirement").Str] = true
		}
		return m
	}
	bf := findings(base)
	for f := range findings(lint) {
		if !bf[f] {
			t.Errorf("openclaw doctor --lint finds on our state what it does not on an untouched copy: %s", f)
		}
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ic string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ic); err != nil || ic != "ok" {
		t.Fatalf("integrity_check: %s %v", ic, err)
	}
}

// TestInteropGatewayLifecycle: with a real gateway of each version on a
// copy of that version's fixture, sessions delete (--gateway and the
// environment's token) goes through sessions.delete: the real `openclaw
// sessions --json` no longer lists the key and still lists the others;
// reset goes through sessions.reset (1.30: a new sessionId; 9.6 keeps it). On
// 2026.9.6 a second delete without --gateway finds the live gateway of the
// state dir itself (said at --log-level debug) and goes through it; archive
// is sessions.patch {archived}.
func TestInteropGatewayLifecycle(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	for _, v := range []struct{ version, fixture string }{{"2026.1.30", "state-2026.1.30"}, {"2026.9.6", "state-2026.9.6"}} {
		t.Run(v.version, func(t *testing.T) {
			state := copyFixture(t, v.fixture)
			g := peertest.StartGateway(t, p, v.version, "--state", state)
			env := []string{"OPENCLAW_GATEWAY_TOKEN=" + g.Token, "OPENCLAW_GATEWAY_URL="}
			list := func() map[string]bool {
				args := []string{"sessions", "--json"}
				if v.version == "2026.9.6" {
					args = append(args, "--all-agents")
				}
				m := map[string]bool{}
				for _, s := range gjson.GetBytes(g.OpenClaw(t, p, args...), "sessions").Array() {
					m[s.Get("key").Str] = true
				}
				return m
			}
			before := list()
			const key = "agent:main:hook:github:push-42"
			if !before[key] {
				t.Fatalf("fixture lacks %s: %v", key, before)
			}
			dry := peertest.Sessions(t, bin, state, env, "--gateway", g.URL, "delete", key, "--dry-run", "--json")
			if !gjson.GetBytes(dry, "dryRun").Bool() || !list()[key] {
				t.Fatalf("dry run deleted: %s", dry)
			}
			out := peertest.Sessions(t, bin, state, env, "--gateway", g.URL, "delete", key, "--json")
			if gjson.GetBytes(out, "count").Int() != 1 {
				t.Fatalf("delete: %s", out)
			}
			after := list()
			for k := range before {
				if k == key && after[k] {
					t.Errorf("openclaw sessions still lists %s", k)
				}
				// The gateway's own sweeper archives the fixture's sub-agents,
				// whose archiveAtMs is long past, whenever it gets to them.
				if k != key && !after[k] && !strings.Contains(k, ":subagent:") {
					t.Errorf("openclaw sessions no longer lists %s", k)
				}
			}
			// reset through sessions.reset: 1.30 gives a new sessionId, 9.6
			// keeps it; `openclaw sessions` shows what the JSON says.
			const rkey = "agent:main:telegram:group:-100123"
			rs := peertest.Sessions(t, bin, state, env, "--gateway", g.URL, "reset", rkey, "--json")
			oldID, newID := gjson.GetBytes(rs, "sessions.0.sessionId").Str, gjson.GetBytes(rs, "sessions.0.newSessionId").Str
			if newID == "" || (v.version == "2026.9.6") != (newID == oldID) {
				t.Errorf("reset: %s", rs)
			}
			args := []string{"sessions", "--json"}
			if v.version == "2026.9.6" {
				args = append(args, "--all-agents")
			}
			if got := gjson.GetBytes(g.OpenClaw(t, p, args...), `sessions.#(key=="`+rkey+`").sessionId`).Str; got != newID {
				t.Errorf("openclaw sessions: %s has sessionId %q, want the reset's %q", rkey, got, newID)
			}
			if v.version != "2026.9.6" {
				return
			}
			// No --gateway: the state dir's live gateway is found and used.
			cmd := exec.Command(bin, "--state-dir", state, "--log-level", "debug", "archive", "agent:main:telegram:group:-100123", "--json")
			cmd.Env = append(os.Environ(), append([]string{"OPENCLAW_SESSION_KEY=", "OPENCLAW_STATE_DIR="}, env...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			arch, err := cmd.Output()
			if err != nil {
				t.Fatalf("archive: %v\n%s%s", err, arch, stderr.String())
			}
			if !strings.Contains(stderr.String(), "live OpenClaw gateway holds the state dir") {
				t.Errorf("the debug log does not say the live gateway was used:\n%s", stderr.String())
			}
			var doc struct {
				Sessions []struct {
					ArchivedAt int64 `json:"archivedAt"`
				} `json:"sessions"`
			}
			if json.Unmarshal(arch, &doc) != nil || len(doc.Sessions) != 1 || doc.Sessions[0].ArchivedAt == 0 {
				t.Fatalf("archive: %s", arch)
			}
			// The gateway lists it among the archived sessions (2026.9.6's
			// `openclaw sessions` lists archived ones too, without the field).
			call, err := exec.Command(p, "gateway", "call", "--home", g.Home, "sessions.list", "--params", `{"archived":true}`, "--json").Output()
			if err != nil {
				t.Fatalf("gateway call sessions.list {archived:true}: %v\n%s", err, call)
			}
			if !gjson.GetBytes(call, `sessions.#(key=="agent:main:telegram:group:-100123")`).Exists() {
				t.Errorf("the gateway does not list the session as archived:\n%s", call)
			}
		})
	}
}

// TestInteropGatewayLifecycleNoState: delete, reset, archive and prune
// through a real gateway of each version (--gateway URL, and a context
// from the contexts file) from a machine with no OpenClaw state at all:
// --state-dir an empty directory, a HOME without .openclaw. The sessions
// are named and listed over the gateway; the real `openclaw sessions`
// shows what each wrote. 1.30 has no archived state: its archive is
// sessions.delete, as the JSON era's is.
func TestInteropGatewayLifecycleNoState(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	bin := peertest.BuildSessions(t)
	for _, v := range []struct{ version, fixture string }{{"2026.1.30", "state-2026.1.30"}, {"2026.9.6", "state-2026.9.6"}} {
		t.Run(v.version, func(t *testing.T) {
			state := copyFixture(t, v.fixture)
			g := peertest.StartGateway(t, p, v.version, "--state", state)
			empty, home, cfg := t.TempDir(), t.TempDir(), t.TempDir()
			env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + cfg, "TOK=" + g.Token}
			run := func(args ...string) []byte {
				t.Helper()
				return runSessions2(t, bin, env, append([]string{"--state-dir", empty}, args...)...)
			}
			byURL := []string{"--gateway", g.URL, "--gateway-token-file", writeToken(t, g.Token)}
			runSessions2(t, bin, env, "context", "add", "peer", "--gateway", g.URL, "--token-env", "TOK")
			byCtx := []string{"--context", "peer"}
			list := func() map[string]string {
				args := []string{"sessions", "--json"}
				if v.version == "2026.9.6" {
					args = append(args, "--all-agents")
				}
				m := map[string]string{}
				for _, s := range gjson.GetBytes(g.OpenClaw(t, p, args...), "sessions").Array() {
					m[s.Get("key").Str] = s.Get("sessionId").Str
				}
				return m
			}
			before := list()
			const del = "agent:main:hook:github:push-42"
			if before[del] == "" {
				t.Fatalf("fixture lacks %s: %v", del, before)
			}
			dry := run(append(byURL, "delete", del, "--dry-run", "--json")...)
			if !gjson.GetBytes(dry, "dryRun").Bool() || gjson.GetBytes(dry, "sessions.0.key").Str != del || list()[del] == "" {
				t.Fatalf("dry run: %s", dry)
			}
			// a bare sessionId names the session over the gateway too
			out := run(append(byCtx, "delete", before[del], "--json")...)
			if gjson.GetBytes(out, "count").Int() != 1 || gjson.GetBytes(out, "sessions.0.key").Str != del {
				t.Fatalf("delete: %s", out)
			}
			if list()[del] != "" {
				t.Errorf("openclaw sessions still lists %s", del)
			}
			const rkey = "agent:main:telegram:group:-100123"
			rs := run(append(byURL, "reset", rkey, "--json")...)
			oldID, newID := gjson.GetBytes(rs, "sessions.0.sessionId").Str, gjson.GetBytes(rs, "sessions.0.newSessionId").Str
			if oldID != before[rkey] || newID == "" || (v.version == "2026.9.6") != (newID == oldID) {
				t.Errorf("reset: %s (before: %s)", rs, before[rkey])
			}
			if got := list()[rkey]; got != newID {
				t.Errorf("openclaw sessions: %s has sessionId %q, want the reset's %q", rkey, got, newID)
			}
			// the main session is refused before any write, as OpenClaw does
			if code, msg := runSessionsCode(t, bin, env, append([]string{"--state-dir", empty}, append(byCtx, "delete", "agent:main:main")...)...); code != 1 || !strings.Contains(msg, "Cannot delete the main session") {
				t.Errorf("delete main: exit %d %s", code, msg)
			}
			arch := run(append(byCtx, "archive", rkey, "--json")...)
			if gjson.GetBytes(arch, "count").Int() != 1 {
				t.Fatalf("archive: %s", arch)
			}
			if v.version == "2026.9.6" {
				if gjson.GetBytes(arch, "sessions.0.archivedAt").Int() == 0 {
					t.Errorf("archive: no archivedAt: %s", arch)
				}
				call, err := exec.Command(p, "gateway", "call", "--home", g.Home, "sessions.list", "--params", `{"archived":true}`, "--json").Output()
				if err != nil || !gjson.GetBytes(call, `sessions.#(key=="`+rkey+`")`).Exists() {
					t.Errorf("the gateway does not list %s as archived: %v\n%s", rkey, err, call)
				}
			} else if list()[rkey] != "" {
				t.Errorf("1.30: archive (a delete) left %s listed", rkey)
			}
			// prune: old cron sessions, listed over the gateway
			pd := run(append(byURL, "prune", "--older-than", "1m", "--kinds", "cron", "--all-agents", "--dry-run", "--json")...)
			n := gjson.GetBytes(pd, "count").Int()
			if n == 0 {
				t.Fatalf("prune --dry-run selected nothing: %s", pd)
			}
			pr := run(append(byURL, "prune", "--older-than", "1m", "--kinds", "cron", "--all-agents", "--yes", "--json")...)
			if gjson.GetBytes(pr, "count").Int() != n {
				t.Fatalf("prune: %s (dry run: %s)", pr, pd)
			}
			after := list()
			for _, s := range gjson.GetBytes(pr, "sessions").Array() {
				if after[s.Get("key").Str] != "" {
					t.Errorf("openclaw sessions still lists pruned %s", s.Get("key").Str)
				}
			}
			if ents, _ := os.ReadDir(empty); len(ents) != 0 {
				t.Errorf("the empty state dir was written: %v", ents)
			}
			if _, err := os.Stat(filepath.Join(home, ".openclaw")); err == nil {
				t.Errorf("%s/.openclaw was created", home)
			}
		})
	}
}

// writeToken writes tok to a private file for --gateway-token-file.
func writeToken(t *testing.T, tok string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// runSessionsCode runs sessions ARGS expecting a failure: its exit code and
// stderr.
func runSessionsCode(t *testing.T, bin string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OPENCLAW_SESSION_KEY=", "OPENCLAW_STATE_DIR=", "OPENCLAW_GATEWAY_URL=", "OPENCLAW_GATEWAY_TOKEN=")
	cmd.Env = append(cmd.Env, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stderr.String()
	}
	return 0, stderr.String()
}
