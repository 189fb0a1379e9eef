//go:build unix

package lock

import (
	"errors"
	"syscall"
)

// PIDAlive reports whether a process with this pid exists on this host
// (in our PID namespace): kill(pid, 0) succeeds, or fails with EPERM (it
// exists but belongs to another user), and it is not a zombie (exited, not
// yet reaped). pid <= 0 is never alive.
func PIDAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return (err == nil || errors.Is(err, syscall.EPERM)) && !zombie(pid)
}

// pidDead reports whether pid certainly does not exist: kill(pid, 0) fails
// with ESRCH, or the process is a zombie (it has exited; only its reaping is
// pending). Any other outcome (including errors we cannot interpret) is
// treated as alive, so we never evict a lock on a guess.
func pidDead(pid int) bool {
	if pid <= 0 {
		return true
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) || zombie(pid)
}
