//go:build !unix && !windows

package lock

import "syscall"

const openNoFollow = 0

func linkUnsupportedErrno(syscall.Errno) bool { return false }
