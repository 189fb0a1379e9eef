//go:build !unix

package sqlitestore

// cpuTime: not measured here.
func cpuTime() int64 { return 0 }
