package lock

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// createTmpfile is createLinked without a named temp file: the payload is
// written to an unnamed O_TMPFILE inode in the lock's directory, which is
// then linked to path (linkat fails with EEXIST when path exists, like
// O_EXCL). A process killed at any moment leaves either no file or the
// complete lock, never a stray temp file. handled is false when O_TMPFILE or
// /proc is unavailable; the caller then falls back to a named temp file.
func createTmpfile(path string, payload []byte) (f *os.File, fi os.FileInfo, handled bool, err error) {
	f, err = os.OpenFile(filepath.Dir(path), unix.O_TMPFILE|os.O_RDWR, 0o666)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, true, err
		}
		return nil, nil, false, nil
	}
	if _, err = f.Write(payload); err == nil {
		fi, err = f.Stat()
	}
	if err != nil {
		f.Close()
		return nil, nil, true, err
	}
	fdPath := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	lerr := unix.Linkat(unix.AT_FDCWD, fdPath, unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	if lerr == nil {
		return f, fi, true, nil
	}
	f.Close()
	if errors.Is(lerr, fs.ErrExist) || errors.Is(lerr, fs.ErrNotExist) && dirMissing(path) {
		return nil, nil, true, &os.LinkError{Op: "link", Old: fdPath, New: path, Err: lerr}
	}
	return nil, nil, false, nil
}

func dirMissing(path string) bool {
	_, err := os.Stat(filepath.Dir(path))
	return errors.Is(err, fs.ErrNotExist)
}
