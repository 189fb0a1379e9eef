//go:build unix

package e2e_test

import (
	"os/exec"
	"syscall"
)

// userCred is a uid/gid to run a command as (tests running as root).
type userCred = syscall.Credential

// runAs makes cmd run as c.
func runAs(cmd *exec.Cmd, c *userCred) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c}
}
