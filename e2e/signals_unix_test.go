//go:build !windows

package e2e_test

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestSignalEndsACommand: cli.Main handles SIGINT and SIGTERM for every
// command (cmd.Context()), and a command that does not return by itself
// on them (here list, stuck in a gateway handshake that never answers) is
// still ended by the signal, as the default handler ended it.
func TestSignalEndsACommand(t *testing.T) {
	bin := buildBinary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accept and never answer
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "--state-dir", t.TempDir(), "--gateway", "ws://"+ln.Addr().String(), "list")
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "OPENCLAW_SESSION_KEY=", "OPENCLAW_GATEWAY_URL=", "OPENCLAW_GATEWAY_TOKEN=")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			time.Sleep(500 * time.Millisecond)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatalf("after %s: %v (want ended by the signal)", sig, err)
				}
				ws := ee.Sys().(syscall.WaitStatus)
				if !ws.Signaled() || ws.Signal() != sig {
					t.Fatalf("after %s: %v (want ended by the signal)", sig, err)
				}
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("still running 30s after %s", sig)
			}
		})
	}
}
