//go:build interop

package e2e_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
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
