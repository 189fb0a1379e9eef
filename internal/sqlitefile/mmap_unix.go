//go:build unix

package sqlitefile

import (
	"os"
	"syscall"
)

// mapOpen maps an open file read-only (PROT_READ, MAP_SHARED: the page
// cache itself, no copy); the mapping outlives the descriptor.
func mapOpen(f *os.File) (mapped, stamp, error) {
	fi, st, err := statRegular(f)
	if err != nil {
		return mapped{}, st, err
	}
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
