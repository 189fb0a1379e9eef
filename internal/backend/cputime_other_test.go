//go:build !unix

package backend

// cpuTime is not measured here (the benchmarks report 0).
func cpuTime() int64 { return 0 }

// sysTime is not measured here.
func sysTime() int64 { return 0 }
