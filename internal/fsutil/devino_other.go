//go:build !unix

package fsutil

import "io/fs"

// DevIno: no device and inode to ask for off Unix (ok is false).
func DevIno(fs.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

// Links: no link count to ask for off Unix (ok is false).
func Links(fs.FileInfo) (n uint64, ok bool) { return 0, false }

// Owner: no owner to ask for off Unix (ok is false).
func Owner(fs.FileInfo) (uid int, ok bool) { return 0, false }
