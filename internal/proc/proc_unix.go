//go:build unix

package proc

import (
	"errors"
	"os/exec"
	"syscall"
)

// Exists reports whether pid names a process on this host (in our PID
// namespace): kill(pid, 0) succeeds, or fails with EPERM (it exists but
// belongs to another user). A zombie (exited, not yet reaped) exists here.
// pid <= 0 never exists.
func Exists(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Gone reports whether pid certainly names no process: kill(pid, 0) fails
// with ESRCH. Any other outcome is not proof, so Gone is false.
// pid <= 0 is always gone.
func Gone(pid int) bool {
	if pid <= 0 {
		return true
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// Detach makes cmd start in a session of its own (setsid): it has no
// controlling terminal, so it outlives its caller and a closed terminal.
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// NewGroup makes cmd start as the leader of a new process group, so that
// KillGroup ends it with everything it started.
func NewGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// KillGroup sends SIGKILL to the process group of a started cmd (see
// NewGroup).
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
