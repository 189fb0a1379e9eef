//go:build unix

package dirstat

import (
	"io/fs"
	"os"
	"runtime"
	"sync"

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
		// A long batch is shared out among the CPUs, as git's preloaded
		// index lstats its files: the kernel's path walk is most of a
		// stat, and the catch-up of a 10,000-session state is mostly
		// its stats.
		parts := min(runtime.GOMAXPROCS(0), maxParts, len(names.list)/minPart)
		if parts <= 1 {
			statRange(int(fd), names, out, 0, len(names.list))
			return
		}
		var wg sync.WaitGroup
		per := (len(names.list) + parts - 1) / parts
		for lo := 0; lo < len(names.list); lo += per {
			hi := min(lo+per, len(names.list))
			wg.Go(func() { statRange(int(fd), names, out, lo, hi) })
		}
		wg.Wait()
	})
	return cerr == nil
}

// A batch is stat'ed in parts of at least minPart names, at most maxParts
// at once.
const (
	minPart  = 512
	maxParts = 4
)

// statRange fills out[lo:hi] with the fstatat of names lo to hi on fd.
func statRange(fd int, names *Names, out []Stat, lo, hi int) {
	var st unix.Stat_t
	for i := lo; i < hi; i++ {
		if fstatat(fd, names, i, &st) != nil {
			continue
		}
		out[i] = Stat{OK: true, Mode: typeOf(uint32(st.Mode)), Size: st.Size, //nolint:unconvert // uint16 on some platforms
			Dev: uint64(st.Dev), Ino: uint64(st.Ino), //nolint:unconvert // int32 on some platforms
			MtimeNano: int64(st.Mtim.Sec)*1e9 + int64(st.Mtim.Nsec), //nolint:unconvert // int32 on 32-bit platforms
			CtimeNano: ctimeOf(&st)}
	}
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
