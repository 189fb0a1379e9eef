//go:build windows

package testutil

import (
	"errors"
	"fmt"
)

// Mkfifo: Windows has no named pipes in the filesystem; the error wraps
// errors.ErrUnsupported, so a test can skip.
func Mkfifo(path string) error {
	return fmt.Errorf("mkfifo %s: no FIFOs on Windows: %w", path, errors.ErrUnsupported)
}
