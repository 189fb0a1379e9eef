//go:build unix

package dirstat

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// statAt fills out with one fstatat per name on d's descriptor (no link
// followed); false when the descriptor cannot be had (the caller lstats
// by path instead).
func statAt(d *os.File, names *Names, out []Stat) bool {
	rc, err := d.SyscallConn()
	if err != nil {
		return false
	}
	cerr := rc.Control(func(fd uintptr) {
		var st unix.Stat_t
		for i := range names.list {
			if fstatat(int(fd), names, i, &st) != nil {
				continue
			}
			out[i] = Stat{OK: true, Mode: typeOf(uint32(st.Mode)), Size: st.Size, //nolint:unconvert // uint16 on some platforms
				Dev: uint64(st.Dev), Ino: uint64(st.Ino), //nolint:unconvert // int32 on some platforms
				MtimeNano: int64(st.Mtim.Sec)*1e9 + int64(st.Mtim.Nsec), //nolint:unconvert // int32 on 32-bit platforms
				CtimeNano: ctimeOf(&st)}
		}
	})
	return cerr == nil
}

// typeOf is the fs type bits of a stat mode, as os.Lstat reports them.
func typeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}
