//go:build unix

package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
)

func execEngine(t *testing.T, command string) *Exec {
	t.Helper()
	cfg := providerConfig(t, "fake", "openai-completions", "http://x/v1", "k", "")
	return &Exec{Command: command, Config: cfg, Now: func() time.Time { return fixedNow }}
}

func execRequestFor(dir string) Request {
	return Request{
		AgentID: "main", SessionKey: "agent:main:subagent:abc", SessionID: "sid-1",
		TranscriptPath: filepath.Join(dir, "sid-1.jsonl"),
		Message:        "do the thing", ExtraSystemPrompt: "# Subagent Context",
		Provider: "fake", Model: "m1", Thinking: "low", Timeout: 10 * time.Second,
		Env: []string{"OPENCLAW_SESSION_KEY=agent:main:subagent:abc"},
	}
}

func TestExecPlainText(t *testing.T) {
	dir := t.TempDir()
	e := execEngine(t, `cat > "$IN"; printf '  %s|%s|%s  \n\n' "$SESSIONS_MESSAGE" "$OPENCLAW_SESSION_KEY" "$SESSIONS_SESSION_ID"`)
	req := execRequestFor(dir)
	req.Env = append(req.Env, "IN="+filepath.Join(dir, "in.json"))
	res, err := e.Turn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reply != "do the thing|agent:main:subagent:abc|sid-1" {
		t.Errorf("reply %q", res.Reply)
	}
	if res.WroteTranscript || res.API != APIExec || res.Provider != "fake" || res.Model != "m1" || res.StopReason != "stop" {
		t.Errorf("result %+v", res)
	}
	in, err := os.ReadFile(filepath.Join(dir, "in.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"agentId":"main","sessionKey":"agent:main:subagent:abc","sessionId":"sid-1","transcriptPath":"` + req.TranscriptPath +
		`","message":"do the thing","extraSystemPrompt":"# Subagent Context","provider":"fake","model":"m1","thinking":"low","timeoutSeconds":10}` + "\n"
	if string(in) != want {
		t.Errorf("stdin\n got %s\nwant %s", in, want)
	}
	a := decode(t, res.Assistant)
	if a["api"] != "exec" || a["content"].([]any)[0].(map[string]any)["text"] != res.Reply {
		t.Errorf("assistant %s", res.Assistant)
	}
}

func TestExecJSONReplies(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, out   string
		reply       string
		wrote       bool
		model       string
		usage       Usage
		prompt      int
		costFromCfg bool
	}{
		{"reply with usage", `{"reply":"hi there","usage":{"input":1000,"output":100,"cacheRead":500},"model":"m1","provider":"fake"}`,
			"hi there", false, "m1", Usage{Input: 1000, Output: 100, CacheRead: 500, TotalTokens: 1600}, 1500, true},
		{"text key, wroteTranscript", `{"text":"done","wroteTranscript":true,"model":"other"}`,
			"done", true, "other", Usage{}, 0, false},
		{"usage with cost", `{"reply":"x","usage":{"input":1,"output":2,"totalTokens":3,"cost":{"input":0.5,"output":0.25}}}`,
			"x", false, "m1", Usage{Input: 1, Output: 2, TotalTokens: 3, Cost: CostBreakdown{Input: 0.5, Output: 0.25, Total: 0.75}}, 1, false},
		{"openclaw agent --json", `{"payloads":[{"text":"MOCK reply #2: hi","mediaUrl":null}],"meta":{"durationMs":5,"agentMeta":{"sessionId":"s","provider":"mock","model":"mock-1","usage":{"input":50,"output":5,"total":55}}}}`,
			"MOCK reply #2: hi", false, "mock-1", Usage{Input: 50, Output: 5, TotalTokens: 55}, 50, false},
		{"unrelated JSON is text", `{"status":"ok"}`, `{"status":"ok"}`, false, "m1", Usage{}, 0, false},
		{"JSON array is text", `[1,2]`, `[1,2]`, false, "m1", Usage{}, 0, false},
		{"broken JSON is text", `{"reply": "x"`, `{"reply": "x"`, false, "m1", Usage{}, 0, false},
		{"empty output", ``, ``, false, "m1", Usage{}, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".out")
			if err := os.WriteFile(f, []byte(c.out+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e := execEngine(t, "cat "+strconv.Quote(f))
			res, err := e.Turn(context.Background(), execRequestFor(dir))
			if err != nil {
				t.Fatal(err)
			}
			if res.Reply != c.reply || res.WroteTranscript != c.wrote || res.Model != c.model || res.PromptTokens != c.prompt {
				t.Errorf("result %+v", res)
			}
			want := c.usage
			if c.costFromCfg {
				want.Cost = EstimateCost(e.Config, "fake", "m1", want)
				if want.Cost.Total == 0 {
					t.Fatal("test needs a configured cost")
				}
			}
			if !usageEqual(res.Usage, want) {
				t.Errorf("usage %+v, want %+v", res.Usage, want)
			}
		})
	}
}

func TestExecDetectsSelfWrittenTranscript(t *testing.T) {
	dir := t.TempDir()
	req := execRequestFor(dir)
	if err := os.WriteFile(req.TranscriptPath, []byte(`{"type":"session","version":3,"id":"sid-1"}`+"\n"+
		`{"type":"message","id":"a1","parentId":null,"message":{"role":"assistant","content":[{"type":"text","text":"old reply"}]}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// like `openclaw agent --local`: appends user + assistant, prints the reply
	writer := `printf '%s\n' '{"type":"message","id":"u1","parentId":"a1","message":{"role":"user","content":[{"type":"text","text":"q"}]}}' '{"type":"message","id":"a2","parentId":"u1","message":{"role":"assistant","content":[{"type":"text","text":"fresh reply"}]}}' >> "$SESSIONS_TRANSCRIPT"; echo "fresh reply"`
	res, err := execEngine(t, writer).Turn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.WroteTranscript {
		t.Error("self-written turn not detected")
	}
	// a reply that is only in the old part of the file is not a detection
	res, err = execEngine(t, `echo "old reply"`).Turn(context.Background(), req)
	if err != nil || res.WroteTranscript {
		t.Errorf("old reply detected: %v %+v", err, res)
	}
	// an explicit false wins over detection
	res, err = execEngine(t, `printf '%s\n' '{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"z"}]}}' >> "$SESSIONS_TRANSCRIPT"; echo '{"reply":"z","wroteTranscript":false}'`).Turn(context.Background(), req)
	if err != nil || res.WroteTranscript {
		t.Errorf("explicit false: %v %+v", err, res)
	}
	// a transcript rewritten from scratch during the run is scanned whole
	res, err = execEngine(t, `printf '%s\n' '{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"new file"}]}}' > "$SESSIONS_TRANSCRIPT"; echo "new file"`).Turn(context.Background(), req)
	if err != nil || !res.WroteTranscript {
		t.Errorf("truncated transcript: %v %+v", err, res)
	}
}

func TestExecFailures(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, cmd string
		is        error
		msg       []string
	}{
		{"non-zero exit", `echo "some output"; echo "line 1" >&2; echo "fatal: it broke" >&2; exit 3`, ErrExec,
			[]string{"exited with status 3", "fatal: it broke"}},
		{"non-zero exit, no stderr", `echo "only stdout"; exit 1`, ErrExec, []string{"exited with status 1: only stdout"}},
		{"JSON error", `echo '{"error":"model overloaded"}'`, ErrExec, []string{"command reported an error: model overloaded"}},
		{"JSON error and exit", `echo '{"error":"bad"}'; exit 4`, ErrExec, []string{"exited with status 4: bad"}},
		{"killed by signal", `kill -9 $$`, ErrExec, []string{"was killed by signal 9 (killed)"}},
		{"command not found", `definitely-not-a-command-xyz`, ErrExec, []string{"exited with status 127", "not found"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := execEngine(t, c.cmd).Turn(context.Background(), execRequestFor(dir))
			if err == nil || !errors.Is(err, c.is) {
				t.Fatalf("err %v, want %v", err, c.is)
			}
			if apperr.CodeOf(err) != apperr.CodeError {
				t.Errorf("code %d", apperr.CodeOf(err))
			}
			mustContain(t, err.Error(), c.msg...)
		})
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err)
	}
	s := string(st)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestExecTimeoutKillsProcessGroup(t *testing.T) {
	for _, c := range []struct {
		name, cmd string
		grace     time.Duration
	}{
		// a grandchild sleep, the shell waiting for it
		{"grandchild", `sleep 30 & echo $! > "$PIDFILE"; wait`, 2 * time.Second},
		// everything ignores SIGTERM: SIGKILL after the grace period
		{"ignores SIGTERM", `trap '' TERM; sleep 30 & echo $! > "$PIDFILE"; wait; wait`, 300 * time.Millisecond},
		// the grandchild keeps stdout open after the shell is gone
		{"holds stdout", `(trap '' TERM; exec sleep 30) & echo $! > "$PIDFILE"; sleep 30`, 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			pidfile := filepath.Join(dir, "pid")
			e := execEngine(t, c.cmd)
			e.KillGrace = c.grace
			req := execRequestFor(dir)
			req.Timeout = 400 * time.Millisecond
			req.Env = append(req.Env, "PIDFILE="+pidfile)
			t0 := time.Now()
			_, err := e.Turn(context.Background(), req)
			el := time.Since(t0)
			if !errors.Is(err, ErrTimeout) || apperr.CodeOf(err) != apperr.CodeTimeout {
				t.Fatalf("err %v (code %d)", err, apperr.CodeOf(err))
			}
			mustContain(t, err.Error(), "timed out after", "process group was killed")
			if el > req.Timeout+c.grace+1500*time.Millisecond {
				t.Errorf("took %s", el)
			}
			pid := readPID(t, pidfile)
			deadline := time.Now().Add(2 * time.Second)
			for alive(pid) {
				if time.Now().After(deadline) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("grandchild %d survived the timeout", pid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

func TestExecCancel(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := execEngine(t, `sleep 30`).Turn(ctx, execRequestFor(dir))
	if !errors.Is(err, ErrCanceled) {
		t.Fatalf("err %v", err)
	}
}

func TestExecOutputCap(t *testing.T) {
	dir := t.TempDir()
	_, err := execEngine(t, `head -c 17000000 /dev/zero | tr '\0' a`).Turn(context.Background(), execRequestFor(dir))
	if !errors.Is(err, ErrResponse) {
		t.Fatalf("err %v", err)
	}
}

func TestExecHugeMessageStaysOnStdin(t *testing.T) {
	dir := t.TempDir()
	req := execRequestFor(dir)
	req.Message = strings.Repeat("x", 200<<10)
	res, err := execEngine(t, `printf '%s:%s:' "$SESSIONS_OMITTED" "${SESSIONS_MESSAGE:-unset}"; wc -c | tr -d ' '`).Turn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Reply, "SESSIONS_MESSAGE:unset:") {
		t.Errorf("reply %q", res.Reply)
	}
	if n, _ := strconv.Atoi(strings.TrimPrefix(res.Reply, "SESSIONS_MESSAGE:unset:")); n < 200<<10 {
		t.Errorf("stdin had %d bytes", n)
	}
}
