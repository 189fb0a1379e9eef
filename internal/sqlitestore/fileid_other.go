//go:build !unix

package sqlitestore

import "io/fs"

// fileID identifies a file (by path where there are no inodes to ask for).
type fileID struct{ path string }

func fileIDOf(path string, _ fs.FileInfo) fileID { return fileID{path: path} }
