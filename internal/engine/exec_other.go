//go:build !unix

package engine

import (
	"os/exec"
	"time"
)

// Without process groups only the command itself can be ended.

func setProcessGroup(cmd *exec.Cmd) {}

func terminateGroup(cmd *exec.Cmd, grace time.Duration, done <-chan struct{}) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func exitSignal(ee *exec.ExitError) string { return "" }
