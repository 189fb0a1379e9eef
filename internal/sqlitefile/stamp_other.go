//go:build !linux

package sqlitefile

import "io/fs"

// sysStamp: size and mtime only elsewhere.
func sysStamp(fs.FileInfo) (uint64, int64) { return 0, 0 }
