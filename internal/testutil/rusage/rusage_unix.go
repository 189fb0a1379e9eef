//go:build unix

// Package rusage reads the test process's own resource use (CPU time,
// peak resident memory) for benchmarks that report it beside wall time:
// on a shared, loaded machine CPU time is the steadier figure. Where the
// system has no getrusage (Windows) every figure is 0 and ok is false,
// so the benchmarks build and run everywhere `make cross` vets them.
package rusage

import (
	"runtime"
	"syscall"
	"time"
)

func get() (syscall.Rusage, bool) {
	var ru syscall.Rusage
	return ru, syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil
}

// CPU is the process's user and system CPU time so far.
func CPU() time.Duration {
	ru, _ := get()
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Sys is the process's system CPU time so far.
func Sys() time.Duration {
	ru, _ := get()
	return time.Duration(ru.Stime.Nano())
}

// PeakRSS is the process's peak resident set size in bytes.
func PeakRSS() (int64, bool) {
	ru, ok := get()
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss), true // bytes there
	}
	return int64(ru.Maxrss) * 1024, true // KiB elsewhere
}
