package fsutil

import (
	"io/fs"
	"time"
)

// Stamp identifies one version of a file: a write changes its size or
// times, a replacement (rename over it) its inode. Where the platform
// gives no inode and ctime (see sysStamp) they are 0, and size and mtime
// alone tell versions apart.
type Stamp struct {
	Size  int64
	MTime time.Time
	Ino   uint64
	CTime int64 // ns
}

// StampOf is the stamp of fi.
func StampOf(fi fs.FileInfo) Stamp {
	s := Stamp{Size: fi.Size(), MTime: fi.ModTime()}
	s.Ino, s.CTime = sysStamp(fi)
	return s
}

// Equal reports whether a and b are the same version of a file.
func (a Stamp) Equal(b Stamp) bool {
	return a.Size == b.Size && a.MTime.Equal(b.MTime) && a.Ino == b.Ino && a.CTime == b.CTime
}
