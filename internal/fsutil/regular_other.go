//go:build !unix

package fsutil

import "os"

// Windows has no FIFOs in the file system: a plain open, then the check on
// the open file.
func openRegular(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, fi.Mode())
	}
	return f, nil
}

func openDir(path string) (*os.File, error) { return os.Open(path) }
