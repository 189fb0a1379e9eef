package history

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil"
)

// syncBuf is a bytes.Buffer safe for one writer and one reader.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// copyState copies the real 2026.1.30 fixture state into a temp dir.
func copyState(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := testutil.CopyTree(testutil.Fixture(t), dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

type followRun struct {
	out, errOut *syncBuf
	cancel      context.CancelFunc
	done        chan error
}

// startFollow runs `history REF --follow` (plus tweak) in the background
// with a short poll.
func startFollow(t *testing.T, dir, ref string, tweak func(*Options)) *followRun {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	out, errOut := &syncBuf{}, &syncBuf{}
	ios.Out, ios.ErrOut = out, errOut
	env := map[string]string{}
	f := &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(k string) string { return env[k] }, Home: "/nonexistent-home"},
		Flags:  &cmdutil.GlobalFlags{StateDir: dir},
		Log:    log.New(io.Discard),
		Now:    time.Now,
		Getenv: func(k string) string { return env[k] },
	}
	ctx, cancel := context.WithCancel(context.Background())
	o := &Options{f: f, Ref: ref, Limit: 2, Follow: true, Poll: 50 * time.Millisecond, Context: ctx}
	if tweak != nil {
		tweak(o)
	}
	r := &followRun{out: out, errOut: errOut, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- run(o) }()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	return r
}

func (r *followRun) waitOut(t *testing.T, buf *syncBuf, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(buf.String(), want) {
			return
		}
		select {
		case err := <-r.done:
			r.done <- err
			t.Fatalf("follow ended early (%v) before %q:\nstdout:\n%s\nstderr:\n%s", err, want, r.out, r.errOut)
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("no %q after 5s:\nstdout:\n%s\nstderr:\n%s", want, r.out, r.errOut)
}

func (r *followRun) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case err := <-r.done:
		r.done <- nil
		if err != nil {
			t.Fatalf("follow ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("follow did not stop")
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteString(s); err != nil {
		t.Fatal(err)
	}
	fh.Close()
}

func msgLine(id, role, text string) string {
	return `{"type":"message","id":"` + id + `","parentId":null,"timestamp":"2026-11-21T05:00:00.000Z","message":{"role":"` + role + `","content":[{"type":"text","text":"` + text + `"}],"timestamp":1795237200000}}` + "\n"
}

const mainTranscript = "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl"

func TestFollowPrintsAppendedMessages(t *testing.T) {
	dir := copyState(t)
	r := startFollow(t, dir, "main", nil)
	r.waitOut(t, r.out, "MOCK")
	appendFile(t, filepath.Join(dir, mainTranscript), msgLine("f0000001", "user", "first appended"))
	r.waitOut(t, r.out, "first appended")
	appendFile(t, filepath.Join(dir, mainTranscript), msgLine("f0000002", "assistant", "second appended"))
	r.waitOut(t, r.out, "second appended")
	r.stop(t)
	got := r.out.String()
	if strings.Count(got, "first appended") != 1 || strings.Count(got, "second appended") != 1 {
		t.Errorf("appended messages not printed exactly once:\n%s", got)
	}
	if strings.Index(got, "first appended") > strings.Index(got, "second appended") {
		t.Errorf("out of order:\n%s", got)
	}
	if !strings.Contains(got, "\n\nuser  2026-11-21 05:00:00Z\n  first appended\n") {
		t.Errorf("appended message not separated like the rest:\n%s", got)
	}
}

// A line written in two pieces is printed once, when complete.
func TestFollowTornLine(t *testing.T) {
	dir := copyState(t)
	r := startFollow(t, dir, "main", func(o *Options) { o.f.Flags.JSON = true })
	r.waitOut(t, r.out, "MOCK")
	line := msgLine("f0000003", "assistant", "torn in two")
	p := filepath.Join(dir, mainTranscript)
	appendFile(t, p, line[:40])
	time.Sleep(300 * time.Millisecond) // several polls see the torn line
	if strings.Contains(r.out.String(), "torn in two") {
		t.Fatal("printed before the line was complete")
	}
	appendFile(t, p, line[40:])
	r.waitOut(t, r.out, "torn in two")
	appendFile(t, p, msgLine("f0000004", "user", "after the torn one"))
	r.waitOut(t, r.out, "after the torn one")
	r.stop(t)
	// JSON Lines: every line one message object.
	lines := strings.Split(strings.TrimRight(r.out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 2 + 2 lines, got %d:\n%s", len(lines), r.out)
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["role"] == nil {
			t.Errorf("not a message object: %q (%v)", l, err)
		}
	}
	if strings.Count(r.out.String(), "torn in two") != 1 {
		t.Errorf("torn line printed %d times", strings.Count(r.out.String(), "torn in two"))
	}
}

// A reset (new sessionId in the store, new transcript) is followed, with a
// marker on stderr; messages the old transcript got first are printed first.
func TestFollowAcrossReset(t *testing.T) {
	dir := copyState(t)
	r := startFollow(t, dir, "main", nil)
	r.waitOut(t, r.out, "MOCK")
	const newID = "11111111-2222-4333-8444-555555555555"
	sessDir := filepath.Join(dir, "agents/main/sessions")
	appendFile(t, filepath.Join(dir, mainTranscript), msgLine("f0000005", "assistant", "last words of the old session"))
	appendFile(t, filepath.Join(sessDir, newID+".jsonl"), `{"type":"session","version":3,"id":"`+newID+`","timestamp":"2026-11-21T05:00:00.000Z","cwd":"/tmp"}`+"\n"+msgLine("f0000006", "user", "hello new session"))
	storePath := filepath.Join(sessDir, "sessions.json")
	raw, err := os.ReadFile(storePath)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]map[string]any
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	st["agent:main:main"]["sessionId"] = newID
	b, _ := json.MarshalIndent(st, "", "  ")
	tmp := storePath + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, storePath); err != nil {
		t.Fatal(err)
	}
	r.waitOut(t, r.out, "hello new session")
	r.waitOut(t, r.errOut, "main was reset: now session "+newID)
	appendFile(t, filepath.Join(sessDir, newID+".jsonl"), msgLine("f0000007", "assistant", "reply in the new session"))
	r.waitOut(t, r.out, "reply in the new session")
	r.stop(t)
	got := r.out.String()
	if i, j := strings.Index(got, "last words of the old session"), strings.Index(got, "hello new session"); i < 0 || i > j {
		t.Errorf("old transcript's last message not printed before the switch:\n%s", got)
	}
}

func TestFollowIdleTimeout(t *testing.T) {
	dir := copyState(t)
	start := time.Now()
	r := startFollow(t, dir, "main", func(o *Options) { o.IdleTimeout = 300 * time.Millisecond; o.Context = nil })
	select {
	case err := <-r.done:
		r.done <- err
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("--idle-timeout did not end the follow")
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("ended after %s, before the idle timeout", d)
	}
	if !strings.Contains(r.out.String(), "MOCK") {
		t.Errorf("no initial messages:\n%s", r.out)
	}
}

// A session with no transcript yet is followed until one appears.
func TestFollowTranscriptNotYetCreated(t *testing.T) {
	dir := copyState(t)
	p := filepath.Join(dir, mainTranscript)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	r := startFollow(t, dir, "main", func(o *Options) { o.Format = FormatMarkdown })
	r.waitOut(t, r.out, "# Session `main`")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r.waitOut(t, r.out, "## 1. User")
	r.stop(t)
	if strings.Count(r.out.String(), "# Session") != 1 {
		t.Errorf("heading printed more than once:\n%s", r.out)
	}
}
