//go:build !unix

package sqlitefile

import "os"

// mapOpen reads an open file whole (no mmap here).
func mapOpen(f *os.File) (mapped, stamp, error) {
	fi, st, err := statRegular(f)
	if err != nil {
		return mapped{}, st, err
	}
	data := make([]byte, fi.Size())
	n, err := f.ReadAt(data, 0)
	if n < len(data) {
		return mapped{}, st, err
	}
	return mapped{data: data}, st, nil
}
