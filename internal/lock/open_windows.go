//go:build windows

package lock

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// openNoFollow: Windows has no O_NOFOLLOW or O_NONBLOCK; readLock's lstat
// before the open and its type check after it stand alone there.
const openNoFollow = 0

// linkUnsupportedErrno: CreateHardLink on a filesystem without hard links
// (FAT, exFAT, some network shares).
func linkUnsupportedErrno(errno syscall.Errno) bool {
	switch errno {
	case windows.ERROR_NOT_SUPPORTED, windows.ERROR_INVALID_FUNCTION, windows.ERROR_TOO_MANY_LINKS:
		return true
	}
	return false
}
