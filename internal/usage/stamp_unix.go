//go:build unix

package usage

import (
	"io/fs"
	"syscall"
)

func devIno(fi fs.FileInfo) (uint64, uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // int32 on some platforms
	}
	return 0, 0
}
