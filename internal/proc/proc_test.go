package proc

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestMain lets the test binary be its own short-lived child.
func TestMain(m *testing.M) {
	if os.Getenv("PROC_TEST_CHILD") == "exit" {
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func child() *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROC_TEST_CHILD=exit")
	return cmd
}

func TestExistsAndGone(t *testing.T) {
	if self := os.Getpid(); !Exists(self) || Gone(self) {
		t.Errorf("our own pid %d: Exists %v, Gone %v", self, Exists(self), Gone(self))
	}
	for _, pid := range []int{0, -1} {
		if Exists(pid) || !Gone(pid) {
			t.Errorf("pid %d: Exists %v, Gone %v", pid, Exists(pid), Gone(pid))
		}
	}
	cmd := child()
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid // exited and reaped
	if Exists(pid) {
		t.Skipf("pid %d reused already", pid)
	}
	if !Gone(pid) {
		t.Errorf("exited child %d: not Gone", pid)
	}
}

// TestGroupAndDetach: a command set up with NewGroup or Detach starts, and
// KillGroup ends a started group.
func TestGroupAndDetach(t *testing.T) {
	for name, setup := range map[string]func(*exec.Cmd){"NewGroup": NewGroup, "Detach": Detach} {
		cmd := child()
		setup(cmd)
		if err := cmd.Run(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBlock$")
	cmd.Env = append(os.Environ(), "PROC_TEST_BLOCK=1")
	NewGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := KillGroup(cmd); err != nil {
		t.Fatalf("KillGroup: %v", err)
	}
	if err := cmd.Wait(); err == nil {
		t.Error("the killed child exited 0")
	}
}

// TestBlock blocks (as the child of TestGroupAndDetach) until killed.
func TestBlock(t *testing.T) {
	if os.Getenv("PROC_TEST_BLOCK") == "" {
		t.Skip("only as a child of TestGroupAndDetach")
	}
	time.Sleep(time.Hour)
}
