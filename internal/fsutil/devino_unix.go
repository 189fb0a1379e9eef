//go:build unix

package fsutil

import (
	"io/fs"
	"syscall"
)

// DevIno returns the device and inode of fi, which name the file itself
// whatever path reached it; ok is false where fi carries none.
func DevIno(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	if st, isStat := fi.Sys().(*syscall.Stat_t); isStat {
		return uint64(st.Dev), uint64(st.Ino), true //nolint:unconvert // int32 on some platforms
	}
	return 0, 0, false
}

// Links returns how many names (hard links) the file of fi has; ok is
// false where fi carries none.
func Links(fi fs.FileInfo) (n uint64, ok bool) {
	if st, isStat := fi.Sys().(*syscall.Stat_t); isStat {
		return uint64(st.Nlink), true //nolint:unconvert // uint16 or uint32 on some platforms
	}
	return 0, false
}

// Owner returns the uid that owns the file of fi; ok is false where fi
// carries none.
func Owner(fi fs.FileInfo) (uid int, ok bool) {
	if st, isStat := fi.Sys().(*syscall.Stat_t); isStat {
		return int(st.Uid), true
	}
	return 0, false
}
