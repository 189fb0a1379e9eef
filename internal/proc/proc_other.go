//go:build !unix && !windows

package proc

import "os/exec"

// Exists: without a way to probe, every positive pid is taken for alive.
func Exists(pid int) bool { return pid > 0 }

// Gone: without a way to probe, only pid <= 0 is gone.
func Gone(pid int) bool { return pid <= 0 }

// Detach: no way to detach here; the process starts as an ordinary child.
func Detach(cmd *exec.Cmd) {}

// NewGroup: no process groups here.
func NewGroup(cmd *exec.Cmd) {}

// KillGroup ends the process itself.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// Background: no priorities here; the process runs as it is.
func Background() error { return nil }
