// Package mapfile gives the readers that scan big files in place (the
// sessions.json loader, the direct SQLite reader) a file's bytes without a
// copy where the platform can map it, and turns the memory fault that a
// mapping raises when its file shrinks under it into an error.
package mapfile

import (
	"fmt"
	"os"
	"runtime/debug"
)

// Map returns the first size bytes of f. Where Mmap is true they are a
// read-only shared mapping (PROT_READ, MAP_SHARED: the page cache itself,
// no copy) that outlives f and that Unmap releases; reading it after the
// file shrank faults (see Guard). Elsewhere they are read into memory, and
// a file shorter than size is an error. Size 0 gives nil.
func Map(f *os.File, size int) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	return mapFile(f, size)
}

// Unmap releases bytes Map returned (nothing to do where Mmap is false).
func Unmap(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return unmapFile(b)
}

// Release gives back the pages of bytes Map returned that are resident in
// this process (madvise MADV_DONTNEED: the mapping is read-only and
// shared, so its pages stay in the page cache and a later read faults them
// in again, unchanged). Nothing to do where Mmap is false.
func Release(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return releaseFile(b)
}

// Fault is a memory fault Guard caught: Value is what the runtime panicked
// with (a runtime.Error with an Addr method).
type Fault struct{ Value any }

func (f *Fault) Error() string { return fmt.Sprint(f.Value) }

// Guard runs fn with memory faults turned into panics for this goroutine
// (debug.SetPanicOnFault): a fault — a mapped file truncated under its
// mapping raises SIGBUS on access — is returned as a *Fault. Any other
// panic goes on; fn's own error is returned as is.
func Guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); fault {
				err = &Fault{Value: r}
				return
			}
			panic(r)
		}
	}()
	return fn()
}
