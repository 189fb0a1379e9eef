package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/mcpserver"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/runstate"
)

// A client that goes away in the middle of sessions_send — its end of the
// stdio pipes closed at once, as when the client process is killed, with
// no cancellation sent — over a real `sessions mcp` process: the server
// ends, the run goes on in its detached runner and completes (`sessions
// wait` gets the reply), and the transcript holds the message and the
// reply once each, with nothing half-written.
func TestSendClientGone(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx, func(t *testing.T) {
			s := newState(t, fx)
			bin := sessionsBinary(t)
			gate := filepath.Join(s.tmp, "gate")
			env := os.Environ()
			for k, v := range s.vars {
				env = append(env, k+"="+v)
			}
			env = append(env, "SESSIONS_RUNNER_EXE="+bin, "ENGINE_TEST_GATE="+gate)
			sessions := func(args ...string) (int, []byte) {
				cmd := exec.Command(bin, append([]string{"--state-dir", s.dir}, args...)...)
				cmd.Env = env
				out, err := cmd.Output()
				if ee, isExit := err.(*exec.ExitError); isExit {
					return ee.ExitCode(), out
				} else if err != nil {
					t.Fatalf("sessions %v: %v", args, err)
				}
				return 0, out
			}
			before := historyOf(t, sessions, "main")
			hashes := s.hashes()

			srv := exec.Command(bin, "--state-dir", s.dir, "mcp")
			srv.Env = env
			stdin, err := srv.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := srv.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			stderr := &testutil.SyncBuffer{}
			srv.Stderr = stderr
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			var waitErr error
			exited := make(chan struct{})
			go func() { waitErr = srv.Wait(); close(exited) }()
			t.Cleanup(func() {
				select {
				case <-exited:
				default:
					_ = srv.Process.Kill()
					<-exited
				}
			})

			prog := newProgress()
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: prog.handle}).
				Connect(ctx, &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
			if err != nil {
				t.Fatal(err)
			}
			params := &mcp.CallToolParams{Name: "sessions_send", Arguments: map[string]any{"sessionKey": "main", "message": "client gone", "timeoutSeconds": 600}}
			params.SetProgressToken("gone-1")
			answered := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, params)
				answered <- err
			}()
			prog.waitFirst(t) // the send is waiting for the reply

			// the client dies: both its pipe ends close, nothing more is sent
			_ = stdin.Close()
			_ = stdout.Close()
			if err := <-answered; err == nil {
				t.Fatal("a call answered after its client went away")
			}
			select {
			case <-exited:
				// stdin at EOF ends the server; a write to the dead client
				// may end it first (SIGPIPE): either way it does not linger
				if waitErr != nil && !strings.Contains(waitErr.Error(), "broken pipe") {
					t.Errorf("the server after its client went away: %v\n%s", waitErr, stderr)
				}
				t.Logf("the server ended: %v", waitErr)
			case <-time.After(2 * time.Minute):
				t.Fatalf("the server outlived its client\n%s", stderr)
			}

			recs, err := runs.Open(s.dir).List()
			if err != nil || len(recs) != 1 {
				t.Fatalf("runs after the client went away: %d %v", len(recs), err)
			}
			id := recs[0].RunID
			if err := os.WriteFile(gate, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			code, out := sessions("wait", id, "--timeout", "120", "--json")
			var w map[string]any
			if err := json.Unmarshal(out, &w); err != nil || code != 0 || w["status"] != "ok" || w["reply"] != "pong: client gone" {
				t.Fatalf("wait %s after the client went away: exit %d %v %s", id, code, err, out)
			}
			code, out = sessions("runs", "--json")
			if code != 0 || !strings.Contains(string(out), `"runId": "`+id+`"`) || !strings.Contains(string(out), `"status": "ok"`) {
				t.Errorf("runs --json: exit %d %s", code, out)
			}

			// once its runner has ended (the announce step follows the reply),
			// the transcript: what it held, then the message and the reply
			// once each, then the announce step and its skip
			runstate.Settle(s.dir)
			after := historyOf(t, sessions, "main")
			if len(after) != len(before)+4 {
				var added []string
				for _, m := range after[min(len(before), len(after)):] {
					added = append(added, roleText(m))
				}
				t.Fatalf("history of main: %d messages before, %d after: %q", len(before), len(after), added)
			}
			for i, m := range before {
				if !sameJSON(m, after[i]) {
					t.Errorf("message %d changed: %v → %v", i, m, after[i])
				}
			}
			var added []string
			for _, m := range after[len(before):] {
				added = append(added, roleText(m))
			}
			if want := []string{"user: client gone", "assistant: pong: client gone", "user: Agent-to-agent announce step.", "assistant: ANNOUNCE_SKIP"}; !slices.Equal(added, want) {
				t.Errorf("the new messages: %q, want %q", added, want)
			}
			// every JSON file the send wrote is whole (the JSON era's store and
			// transcript; the SQLite era's writes are transactions)
			for p, h := range s.hashes() {
				if hashes[p] == h || !strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".jsonl") {
					continue
				}
				data, err := os.ReadFile(filepath.Join(s.dir, p))
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(p, ".json") {
					if !json.Valid(data) {
						t.Errorf("%s is not whole JSON", p)
					}
					continue
				}
				if len(data) > 0 && data[len(data)-1] != '\n' {
					t.Errorf("%s: the last line is not ended", p)
				}
				for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
					if !json.Valid(line) {
						t.Errorf("%s: line %d is not whole JSON: %.200s", p, i+1, line)
					}
				}
			}
		})
	}
}

// historyOf is the session's messages as `history KEY --raw --json` prints
// them.
func historyOf(t *testing.T, sessions func(...string) (int, []byte), key string) []map[string]any {
	t.Helper()
	code, out := sessions("history", key, "--raw", "--limit", "1000", "--json")
	var h struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(out, &h); err != nil || code != 0 {
		t.Fatalf("history %s: exit %d %v %s", key, code, err, out)
	}
	return h.Messages
}

// roleText is "role: text" of a message (its text blocks joined).
func roleText(m map[string]any) string {
	var text string
	switch c := m["content"].(type) {
	case string:
		text = c
	case []any:
		var parts []string
		for _, b := range c {
			if bm, ok := b.(map[string]any); ok && bm["type"] == "text" {
				parts = append(parts, bm["text"].(string))
			}
		}
		text = strings.Join(parts, "\n")
	}
	return m["role"].(string) + ": " + text
}

// conns is an HTTP client transport whose connections the test can cut.
type conns struct {
	mu  sync.Mutex
	all []net.Conn
}

func (c *conns) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		c.mu.Lock()
		c.all = append(c.all, conn)
		c.mu.Unlock()
	}
	return conn, err
}

// cut closes every connection, as a client that dies leaves them.
func (c *conns) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.all {
		_ = conn.Close()
	}
}

// Over HTTP: a client whose connections drop in the middle of
// sessions_send (no cancellation sent) leaves the run going; another
// client then waits for it and gets the reply, and the server serves on.
func TestSendConnectionDropped(t *testing.T) {
	s := newState(t, fixtures[1]).withRunner()
	gate := filepath.Join(s.tmp, "gate")
	t.Setenv("ENGINE_TEST_GATE", gate)
	hs := httpServer(t, s.server(false, realTime))
	cc := &conns{}
	tr := &mcp.StreamableClientTransport{Endpoint: hs.URL + mcpserver.Path, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearerOver{token: testToken, rt: &http.Transport{DialContext: cc.dial}}}}
	prog := newProgress()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: prog.handle}).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "sessions_send", Arguments: map[string]any{"sessionKey": "main", "message": "dropped", "timeoutSeconds": 600}}
	params.SetProgressToken("drop-1")
	answered := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), params)
		answered <- err
	}()
	prog.waitFirst(t)
	cc.cut()
	if err := <-answered; err == nil {
		t.Fatal("a call answered after its connection dropped")
	}
	// (a dead client closes nothing: cs is left as it is)

	recs, err := runs.Open(s.dir).List()
	if err != nil || len(recs) != 1 {
		t.Fatalf("runs after the drop: %d %v", len(recs), err)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	other := connectHTTP(t, s.server(false, realTime), nil)
	w := ok(t, other, "sessions_wait", map[string]any{"runId": recs[0].RunID, "timeoutSeconds": 120})
	if w["status"] != "ok" || w["reply"] != "pong: dropped" {
		t.Fatalf("wait after the drop: %v", w)
	}
	// the server whose client dropped serves a new one
	again, err := connectHTTPWith(t, hs.URL, bearer{token: testToken}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if doc := ok(t, again, "sessions_runs", map[string]any{}); !strings.Contains(fmt.Sprint(doc["runs"]), recs[0].RunID) {
		t.Errorf("runs after the drop: %v", doc)
	}
}

// bearerOver adds the token to every request sent over rt.
type bearerOver struct {
	token string
	rt    http.RoundTripper
}

func (b bearerOver) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}
