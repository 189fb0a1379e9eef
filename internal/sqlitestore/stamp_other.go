//go:build !linux

package sqlitestore

import "os"

// sysStamp: size and mtime only elsewhere (darwin and the BSDs name the ctime field differently; size and mtime suffice to see a checkpoint).
func sysStamp(fi os.FileInfo) (uint64, int64) { return 0, 0 }
