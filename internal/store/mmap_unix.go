//go:build unix

package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps size bytes of f read-only. Not MAP_POPULATE: faulting the
// pages in from the scanning goroutines spreads that work over the CPUs,
// where populating does it serially inside mmap.
func mapFile(f *os.File, size int) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
}

func unmapFile(b []byte) { _ = unix.Munmap(b) }
