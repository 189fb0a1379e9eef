//go:build unix

package searchindex

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkOwner refuses a directory another user owns: the index holds text
// derived from transcripts.
func checkOwner(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("owned by uid %d, not by this user (%d)", st.Uid, uid)
	}
	return nil
}
