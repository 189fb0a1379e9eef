//go:build unix

package sqlitefile

import (
	"os"
	"syscall"
)

// mapped is a file's content: a read-only shared mapping, or nil for an
// empty file.
type mapped struct {
	data  []byte
	unmap func() error
}

// mapFile maps path read-only (PROT_READ, MAP_SHARED: the page cache
// itself, no copy) and returns it with the file's stamp taken before.
func mapFile(path string) (mapped, stamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return mapped{}, stamp{}, err
	}
	defer f.Close()
	return mapOpen(f)
}

// mapOpen maps an open file (the mapping outlives the descriptor).
func mapOpen(f *os.File) (mapped, stamp, error) {
	fi, err := f.Stat()
	if err != nil {
		return mapped{}, stamp{}, err
	}
	if !fi.Mode().IsRegular() {
		return mapped{}, stamp{}, unsupportedf("%s is not a regular file", f.Name())
	}
	st := stampOf(fi)
	if fi.Size() == 0 {
		return mapped{}, st, nil
	}
	if fi.Size() != int64(int(fi.Size())) {
		return mapped{}, st, unsupportedf("%s is too large to map", f.Name())
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return mapped{}, st, err
	}
	return mapped{data: data, unmap: func() error { return syscall.Munmap(data) }}, st, nil
}
