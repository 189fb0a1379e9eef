//go:build windows

package e2e_test

import (
	"fmt"
	"os/exec"
)

// userCred is a uid/gid to run a command as (tests running as root).
type userCred struct{ Uid, Gid uint32 }

// runAs: Windows has no uids; cmd then fails to start with that reason
// (the tests only ask when os.Getuid is 0, and it is -1 on Windows).
func runAs(cmd *exec.Cmd, c *userCred) {
	cmd.Err = fmt.Errorf("running as uid %d needs Unix", c.Uid)
}
