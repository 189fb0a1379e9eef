//go:build unix

package sqlitestore

import (
	"io/fs"
	"syscall"
)

// fileID identifies a file by device and inode.
type fileID struct {
	dev, ino uint64
	path     string
}

func fileIDOf(path string, fi fs.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}
	}
	return fileID{path: path}
}
