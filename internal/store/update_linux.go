package store

import (
	"errors"
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// writeTemp writes data to the temp file tmp in dir, fsynced, with mode. On
// Linux the file is created unnamed (O_TMPFILE) and linked to tmp only once
// its content is complete and synced, so a writer killed while writing
// leaves no file behind (only a kill in the microseconds between the link
// and the rename can; sweepTemps removes those). Falls back to an ordinary
// O_EXCL temp file where O_TMPFILE or /proc is unavailable. named reports
// whether tmp exists (the caller removes it on failure).
func writeTemp(dir, tmp string, data []byte, mode fs.FileMode) (named bool, err error) {
	f, err := os.OpenFile(dir, unix.O_TMPFILE|os.O_WRONLY, mode)
	if err != nil {
		return writeNamedTemp(tmp, data, mode)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return false, err
	}
	if err := f.Chmod(mode); err != nil {
		return false, err
	}
	if err := f.Sync(); err != nil {
		return false, err
	}
	fdPath := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	err = unix.Linkat(unix.AT_FDCWD, fdPath, unix.AT_FDCWD, tmp, unix.AT_SYMLINK_FOLLOW)
	if err != nil {
		// No /proc: AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; try it, then
		// write a named file after all.
		err = unix.Linkat(int(f.Fd()), "", unix.AT_FDCWD, tmp, unix.AT_EMPTY_PATH)
	}
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, err
		}
		return writeNamedTemp(tmp, data, mode)
	}
	return true, nil
}
