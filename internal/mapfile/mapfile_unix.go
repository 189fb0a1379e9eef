//go:build unix

package mapfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// Mmap reports whether Map maps files (true here) or reads them.
const Mmap = true

// mapFile is not MAP_POPULATE: faulting the pages in from the goroutines
// that scan them spreads that work over the CPUs, where populating does it
// serially inside mmap.
func mapFile(f *os.File, size int) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
}

func unmapFile(b []byte) error { return unix.Munmap(b) }

func releaseFile(b []byte) error { return unix.Madvise(b, unix.MADV_DONTNEED) }
