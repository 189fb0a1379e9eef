//go:build linux

package lock

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestZombieHolderIsDead: a lock holder that was killed but not yet reaped
// (a zombie: kill(pid, 0) still succeeds) is dead for the lock protocols.
func TestZombieHolderIsDead(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer cmd.Wait() // reaps it at the end
	if !PIDAlive(pid) || pidDead(pid) {
		t.Fatalf("a running process is not alive")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !zombie(pid) {
		if time.Now().After(deadline) {
			t.Fatal("the killed child never became a zombie")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) != nil {
		t.Fatalf("kill(zombie, 0) failed: the test proves nothing")
	}
	if PIDAlive(pid) || !pidDead(pid) {
		t.Errorf("a zombie counts as alive")
	}
}
