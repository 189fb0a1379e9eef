//go:build unix

package lock

import "syscall"

// openNoFollow: a lock file is opened without following a symlink and
// without blocking on a FIFO swapped in after the lstat.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// linkUnsupportedErrno: the Unix errnos are the ones linkUnsupported names.
func linkUnsupportedErrno(syscall.Errno) bool { return false }
