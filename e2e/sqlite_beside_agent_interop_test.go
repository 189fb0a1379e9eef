//go:build interop

// Our writes beside a real `openclaw agent --local` 2026.9.6
// (faults): while the real embedded agent runs a turn on one session of the
// main agent's database (it holds gateway.state.lock with role
// agent-embedded and agent_database_leases rows for the whole turn; its
// model request is held open by a proxy so the two surely overlap), our
// `send` (provider engine, mock LLM) and `patch` on other sessions of the
// same database go through, our write to the agent's own session is
// refused with exit 10, and after the agent finishes both turns are there,
// seq is contiguous and integrity_check / foreign_key_check are clean.
// Run: make interop (or, from the repository root,
// OPENCLAW_PEER=$PWD/../shared/peer/openclaw-peer go test -tags interop
// -run TestInteropWriteBesideEmbeddedAgent -count=1 -v ./e2e/).

package e2e_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// holdProxy forwards to the mock LLM; a request whose body carries marker
// is held until release is closed (held is closed when the first arrives).
type holdProxy struct {
	rp      *httputil.ReverseProxy
	marker  []byte
	held    chan struct{}
	release chan struct{}
	once    sync.Once
}

func (h *holdProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if bytes.Contains(body, h.marker) {
		h.once.Do(func() { close(h.held) })
		select {
		case <-h.release:
		case <-time.After(240 * time.Second):
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	h.rp.ServeHTTP(w, r)
}

func TestInteropWriteBesideEmbeddedAgent(t *testing.T) {
	t.Parallel() // its own peer homes, gateways on free ports and temp dirs: beside the other interop tests
	p := peertest.Peer(t)
	peertest.InstallVersion(t, p, "2026.9.6")
	bin := peertest.BuildSessions(t)
	root := t.TempDir()
	state, home := copyState96(t, root, "state", "home")
	peertest.EditConfig(t, state, func(cfg map[string]any) {
		cfg["logging"] = map[string]any{"level": "info", "file": filepath.Join(root, "openclaw.log")}
	})
	llm, _ := peertest.StartMockLLM(t, p)
	up, _ := url.Parse(strings.TrimSuffix(llm, "/v1"))
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	hp := &holdProxy{rp: httputil.NewSingleHostReverseProxy(up), marker: []byte("HOLD-" + stamp), held: make(chan struct{}), release: make(chan struct{})}
	hp.rp.FlushInterval = -1
	srv := httptest.NewServer(hp)
	defer srv.Close()
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(hp.release) }) }
	defer release()
	peertest.SetProviderURL(t, state, "mock", srv.URL+"/v1")

	const mainKey = "agent:main:main"
	const theirKey = "agent:main:cron:peer-job-1"
	const patched = "agent:main:telegram:group:-100123"
	theirMsg := "HOLD-" + stamp + " please answer"

	// 1. the real embedded agent on theirKey, held inside its model call
	cmd := exec.Command(p, "run", "--version", "2026.9.6", "--home", home, "--state", state, "--cwd", home, "--timeout", "280", "--",
		"agent", "--local", "--session-key", theirKey, "--message", theirMsg, "--json")
	var agentOut, agentErr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &agentOut, &agentErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-hp.held:
	case err := <-done:
		t.Fatalf("openclaw agent --local ended before its model call: %v\n%s%s", err, agentOut.String(), agentErr.String())
	case <-time.After(180 * time.Second):
		t.Fatal("openclaw agent --local made no model call")
	}
	var pl struct {
		PID  int    `json:"pid"`
		Role string `json:"role"`
	}
	lockDir := filepath.Join(state, "tmp", "openclaw-"+strconv.Itoa(os.Getuid()))
	if data, err := os.ReadFile(filepath.Join(lockDir, "gateway.state.lock")); err != nil || json.Unmarshal(data, &pl) != nil || pl.Role != "agent-embedded" {
		t.Fatalf("the running agent holds no agent-embedded gateway.state.lock: %s %v", data, err)
	}

	ours := func(args ...string) ([]byte, int) {
		c := exec.Command(bin, append([]string{"--state-dir", state}, args...)...)
		c.Env = append(os.Environ(), "OPENCLAW_SESSION_KEY=", "OPENCLAW_STATE_DIR=", "OPENCLAW_SANDBOXED=", "SESSIONS_ENGINE=", "SESSIONS_DELIVER=")
		var e bytes.Buffer
		c.Stderr = &e
		out, err := c.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return append(out, e.Bytes()...), code
	}

	// 2. ours, while it runs: send and patch on other sessions go through
	ourMsg := "beside " + stamp + ": remember quokkaberry"
	out, code := ours("send", "main", ourMsg, "--json", "--timeout", "90")
	if code != 0 || gjson.GetBytes(out, "status").String() != "ok" {
		t.Fatalf("send beside a running openclaw agent --local: exit %d\n%s", code, out)
	}
	out, code = ours("patch", patched, "--label", "beside "+stamp, "--send-policy", "deny", "--json")
	if code != 0 {
		t.Fatalf("patch beside a running openclaw agent --local: exit %d\n%s", code, out)
	}
	// its own session: refused naming its pid — patch exit 10; send's run
	// fails before the model is called (a failed run: exit 1, status error)
	out, code = ours("patch", theirKey, "--label", "not now", "--json")
	if code != 10 || !strings.Contains(string(out), "pid "+strconv.Itoa(pl.PID)) {
		t.Fatalf("patch of the agent's own session: exit %d (want 10 naming pid %d)\n%s", code, pl.PID, out)
	}
	out, code = ours("send", theirKey, "not now", "--json", "--timeout", "90")
	if code == 0 || gjson.GetBytes(out, "status").String() != "error" || !strings.Contains(gjson.GetBytes(out, "error").String(), "pid "+strconv.Itoa(pl.PID)) {
		t.Fatalf("send to the agent's own session: exit %d (want a refusal naming pid %d)\n%s", code, pl.PID, out)
	}
	select {
	case err := <-done:
		t.Fatalf("openclaw agent --local ended while held: %v", err)
	default:
	}

	// 3. let it finish
	release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("openclaw agent --local: %v\n%s%s", err, agentOut.String(), agentErr.String())
		}
	case <-time.After(200 * time.Second):
		t.Fatal("openclaw agent --local did not finish")
	}
	if !strings.Contains(agentOut.String(), "MOCK reply") {
		t.Errorf("the agent's reply: %s", agentOut.String())
	}
	if strings.Contains(strings.ToLower(agentErr.String()), "busy") || strings.Contains(agentErr.String(), "MutationConflict") {
		t.Errorf("the agent complains:\n%s", agentErr.String())
	}

	// 4. both turns there, seq contiguous, clean
	db, err := sql.Open("sqlite", "file:"+filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var integrity string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Errorf("integrity_check: %q %v", integrity, err)
	}
	var fk int
	if err := db.QueryRow("SELECT count(*) FROM pragma_foreign_key_check").Scan(&fk); err != nil || fk != 0 {
		t.Errorf("foreign_key_check: %d %v", fk, err)
	}
	text := `coalesce(te.event_json, '')`
	for key, want := range map[string][]string{mainKey: {ourMsg, "MOCK reply"}, theirKey: {theirMsg, "MOCK reply"}} {
		var n, maxSeq int64
		if err := db.QueryRow(`SELECT count(*), max(seq) FROM transcript_events te JOIN session_nodes n ON n.current_session_id = te.session_id WHERE n.session_key = ?`, key).Scan(&n, &maxSeq); err != nil || n != maxSeq+1 {
			t.Errorf("%s: seq not contiguous: %d events, max %d, %v", key, n, maxSeq, err)
		}
		for _, w := range want {
			var hits int
			// OpenClaw compresses events over 1 KiB: search the decoded
			// payload through sessions' own reader below when not plain.
			if err := db.QueryRow(`SELECT count(*) FROM transcript_events te JOIN session_nodes n ON n.current_session_id = te.session_id
				WHERE n.session_key = ? AND instr(`+text+`, ?) > 0`, key, w).Scan(&hits); err != nil {
				t.Fatal(err)
			}
			if hits == 0 {
				hist, _ := ours("history", key, "--json", "--limit", "all")
				if !strings.Contains(string(hist), w) {
					t.Errorf("%s: %q is not in its transcript", key, w)
				}
			}
		}
	}
	// OpenClaw reads it all back as its own
	sout, serr, code := oc96(t, p, home, state, "sessions", "--json", "--all-agents", "--limit", "all")
	if code != 0 || strings.Contains(serr, "MIGRATION_REQUIRED") {
		t.Fatalf("openclaw sessions exited %d\n%s", code, serr)
	}
	for _, s := range gjson.Get(sout, "sessions").Array() {
		if s.Get("key").String() == patched && s.Get("label").String() != "beside "+stamp {
			t.Errorf("patched session as OpenClaw lists it: %s", s.Raw)
		}
	}
}
