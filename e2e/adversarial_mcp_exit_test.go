package e2e_test

// A hostile or broken client, or a call stuck in a system call, never
// holds `sessions mcp`: the server (a real process, built with the
// sessions_stuckcall test seam, whose sessions_history opens a FIFO no one
// writes — an open that blocks in the kernel for good) exits when its
// input closes and on SIGTERM with that call in flight, and a client's
// notifications/cancelled ends the call's wait while other calls are
// served.

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/runstate"
)

type stuckServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan map[string]any
	stderr *testutil.SyncBuffer
	exited chan error
}

func startStuck(t *testing.T) *stuckServer {
	t.Helper()
	if err := testutil.Mkfifo(filepath.Join(t.TempDir(), "probe")); err != nil {
		t.Skip(err)
	}
	// built before runstate isolates HOME: the build uses the machine's
	// module and build caches
	bin := buildBinary(t, "-tags", "sessions_stuckcall")
	s := runstate.New(t, "state-2026.1.30", map[string]string{"NO_COLOR": "1"})
	fifo := filepath.Join(s.Tmp, "stuck.fifo")
	if err := testutil.Mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp")
	cmd.Env = os.Environ()
	for k, v := range s.Vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "STUCKCALL_SEAM_TOOL=sessions_history", "STUCKCALL_SEAM_FIFO="+fifo)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	srv := &stuckServer{t: t, cmd: cmd, in: in, lines: make(chan map[string]any, 16), stderr: &testutil.SyncBuffer{}, exited: make(chan error, 1)}
	cmd.Stderr = srv.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-srv.exited
	})
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				srv.lines <- m
			}
		}
		close(srv.lines)
		srv.exited <- cmd.Wait()
	}()
	srv.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"adversarial","version":"1"}}}`)
	srv.answer(1)
	srv.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return srv
}

func (s *stuckServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("write %s: %v", line, err)
	}
}

// answer waits for the response to id (other messages are skipped).
func (s *stuckServer) answer(id float64) map[string]any {
	s.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case m, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("the server ended before answering %v; stderr:\n%s", id, s.stderr.String())
			}
			if got, _ := m["id"].(float64); got == id {
				return m
			}
		case <-timeout:
			s.t.Fatalf("no answer to call %v after 20s; stderr:\n%s", id, s.stderr.String())
		}
	}
}

// stuckCall starts the call that never returns (id 2), and makes sure the
// server still serves: sessions_list (id 3) is answered.
func (s *stuckServer) stuckCall() {
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sessions_history","arguments":{"sessionKey":"main"}}}`)
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sessions_list","arguments":{}}}`)
	if m := s.answer(3); m["result"] == nil {
		s.t.Fatalf("sessions_list beside the stuck call: %v", m)
	}
}

// waitExit requires the process to end within bound (a server that
// outlives its input or a SIGTERM is the failure).
func (s *stuckServer) waitExit(bound time.Duration) {
	s.t.Helper()
	go func() {
		for range s.lines { // drain: the server must never block on its output
		}
	}()
	select {
	case err := <-s.exited:
		s.exited <- err // for the cleanup
		if err != nil {
			s.t.Errorf("exit: %v; stderr:\n%s", err, s.stderr.String())
		}
	case <-time.After(bound):
		s.t.Fatalf("the server still runs %v later with a call stuck; stderr:\n%s", bound, s.stderr.String())
	}
}

func TestAdversarialMCPExitsWhenInputCloses(t *testing.T) {
	s := startStuck(t)
	s.stuckCall()
	s.in.Close()
	s.waitExit(15 * time.Second)
}

func TestAdversarialMCPExitsOnSIGTERM(t *testing.T) {
	s := startStuck(t)
	s.stuckCall()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s.waitExit(15 * time.Second)
}

func TestAdversarialMCPCancelledEndsTheWait(t *testing.T) {
	s := startStuck(t)
	s.stuckCall()
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the client gave up"}}`)
	// the server goes on serving
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sessions_list","arguments":{}}}`)
	if m := s.answer(4); m["result"] == nil {
		t.Fatalf("sessions_list after the cancellation: %v", m)
	}
	// the cancelled call no longer holds the session: closing the input
	// ends it at once, not by the exit grace that leaves stuck calls behind
	s.in.Close()
	s.waitExit(15 * time.Second)
	if strings.Contains(s.stderr.String(), "still running") {
		t.Errorf("the cancelled call still held the session at exit:\n%s", s.stderr.String())
	}
}
