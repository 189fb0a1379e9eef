//go:build linux

package fsutil

import (
	"io/fs"
	"syscall"
)

// sysStamp returns the inode and ctime (ns) of fi, which change when the
// file is replaced or written.
func sysStamp(fi fs.FileInfo) (uint64, int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec) //nolint:unconvert // int32 on 32-bit platforms
	}
	return 0, 0
}
