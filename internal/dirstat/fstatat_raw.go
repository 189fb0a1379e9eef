//go:build linux && (amd64 || arm64)

package dirstat

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// sysNames are the names NUL-terminated in one buffer (offs[i] is where
// name i starts): the system call takes them as they are, nothing is
// copied per call.
type sysNames struct {
	buf  []byte
	offs []int
}

func makeSysNames(names []string) sysNames {
	n := 0
	for _, s := range names {
		n += len(s) + 1
	}
	sn := sysNames{buf: make([]byte, 0, n), offs: make([]int, len(names))}
	for i, s := range names {
		sn.offs[i] = len(sn.buf)
		sn.buf = append(append(sn.buf, s...), 0)
	}
	return sn
}

// fstatat is fstatat(fd, names[i], st, AT_SYMLINK_NOFOLLOW).
func fstatat(fd int, names *Names, i int, st *unix.Stat_t) error {
	p := unsafe.Pointer(&names.sys.buf[names.sys.offs[i]])
	for {
		_, _, e := unix.Syscall6(sysFstatat, uintptr(fd), uintptr(p), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
		switch e {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return e
	}
}
