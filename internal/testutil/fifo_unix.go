//go:build unix

package testutil

import "syscall"

// Mkfifo creates a named pipe at path (mode 0600), for tests of paths that
// must never be opened.
func Mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
