package lock

import "github.com/openclaw/sessions/internal/proc"

// PIDAlive reports whether a process with this pid exists on this host (in
// our PID namespace; see proc.Exists: another user's process exists too) and
// is not a zombie (exited, not yet reaped). pid <= 0 is never alive.
func PIDAlive(pid int) bool {
	return proc.Exists(pid) && !zombie(pid)
}

// pidDead reports whether pid certainly does not exist (proc.Gone: ESRCH on
// Unix; no such process or exited on Windows), or the process is a zombie
// (it has exited; only its reaping is pending). Any other outcome
// (including errors we cannot interpret) is treated as alive, so we never
// evict a lock on a guess.
func pidDead(pid int) bool {
	return proc.Gone(pid) || zombie(pid)
}
