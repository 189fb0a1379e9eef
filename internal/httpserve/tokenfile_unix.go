//go:build unix

package httpserve

import (
	"errors"
	"os"
	"syscall"

	"github.com/openclaw/sessions/internal/apperr"
)

// readTokenFile opens the token file without following a symbolic link
// and without blocking (a FIFO put in its place between the caller's
// Lstat and the open must not hang the server), then checks what it
// opened: a regular file, owned by this user, that group and others
// cannot read.
func readTokenFile(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, apperr.Usagef("--token-file %s is a symbolic link: give the file itself", path)
	}
	if err != nil {
		return nil, apperr.Usagef("--token-file: %v", &os.PathError{Op: "open", Path: path, Err: err})
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, apperr.Usagef("--token-file: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, apperr.Usagef("--token-file %s is not a regular file", path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil, apperr.Usagef("--token-file %s is owned by uid %d, not by you (uid %d): chown it", path, st.Uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, apperr.Usagef("--token-file %s can be read by others (mode %04o): chmod 600 it", path, perm)
	}
	return readAllTokenFile(f, path)
}
