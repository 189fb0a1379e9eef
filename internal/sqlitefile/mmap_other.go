//go:build !unix

package sqlitefile

import "os"

// mapped is a file's content (read into memory where there is no mmap).
type mapped struct {
	data  []byte
	unmap func() error
}

// mapFile reads path whole and returns it with the file's stamp taken before.
func mapFile(path string) (mapped, stamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return mapped{}, stamp{}, err
	}
	defer f.Close()
	return mapOpen(f)
}

// mapOpen reads an open file whole.
func mapOpen(f *os.File) (mapped, stamp, error) {
	fi, err := f.Stat()
	if err != nil {
		return mapped{}, stamp{}, err
	}
	if !fi.Mode().IsRegular() {
		return mapped{}, stamp{}, unsupportedf("%s is not a regular file", f.Name())
	}
	st := stampOf(fi)
	data := make([]byte, fi.Size())
	n, err := f.ReadAt(data, 0)
	if n < len(data) {
		return mapped{}, st, err
	}
	return mapped{data: data}, st, nil
}
