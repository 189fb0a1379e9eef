//go:build unix && !(linux && (amd64 || arm64))

package dirstat

import "golang.org/x/sys/unix"

// sysNames: nothing prepared (unix.Fstatat takes the name as a string).
type sysNames struct{}

func makeSysNames([]string) sysNames { return sysNames{} }

// fstatat is fstatat(fd, names[i], st, AT_SYMLINK_NOFOLLOW).
func fstatat(fd int, names *Names, i int, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(fd, names.list[i], st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}
