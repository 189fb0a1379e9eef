//go:build !unix

package store

import (
	"errors"
	"os"
)

// mapFile is not used off Unix: lean loads read the file like Load.
func mapFile(*os.File, int) ([]byte, error) { return nil, errors.New("no mmap") }

func unmapFile([]byte) {}
