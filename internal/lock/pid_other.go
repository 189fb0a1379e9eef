//go:build !unix

package lock

// PIDAlive reports whether a process with this pid exists. Outside Unix it
// cannot be probed; every positive pid is assumed alive.
func PIDAlive(pid int) bool { return pid > 0 }

// pidDead: outside Unix no lock is evicted for a dead holder, only by age.
func pidDead(pid int) bool { return pid <= 0 }
