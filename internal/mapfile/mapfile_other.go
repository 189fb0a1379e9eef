//go:build !unix

package mapfile

import (
	"io"
	"os"
)

// Mmap reports whether Map maps files or reads them (here: reads).
const Mmap = false

func mapFile(f *os.File, size int) ([]byte, error) {
	data := make([]byte, size)
	n, err := f.ReadAt(data, 0)
	if n < size {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return data, nil
}

func unmapFile([]byte) error { return nil }

func releaseFile([]byte) error { return nil }
