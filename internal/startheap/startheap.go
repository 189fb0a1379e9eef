// Package startheap lets a short process's heap grow to a set size before
// its first garbage collection, as the Go compiler does for itself
// (cmd/compile's AdjustStartingHeap).
//
// A Go process starts with a heap goal of 4 MiB and doubles it collection
// by collection, so a command that allocates a few tens of MiB and exits
// (`sessions list --json` of 10,000 rows: three collections, an eighth of
// its CPU) spends its time marking a heap that is about to be thrown away.
// Adjust raises GOGC until the heap's goal reaches the size asked for, then
// gives GOGC back its value at the first collection whose next goal would
// pass it: a long-lived process (the MCP server, the terminal UI) runs with
// the usual GOGC once its heap has grown, and a memory limit (debug.
// SetMemoryLimit, GOMEMLIMIT) still bounds the heap whatever GOGC says.
package startheap

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// Goal is the heap goal a command of this tool starts with.
const Goal = 64 << 20

const goalMetric = "/gc/heap/goal:bytes"

// Adjust raises GOGC so that the first collection comes when the heap
// reaches about goal bytes, and restores it once the heap outgrew goal. It
// does nothing when GOGC is set in the environment (the user's choice) or
// was set by the program, or when the heap's goal is already that large.
// It reports whether it changed GOGC.
func Adjust(goal uint64) bool {
	if _, set := os.LookupEnv("GOGC"); set {
		return false
	}
	s := []metrics.Sample{{Name: goalMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return false
	}
	cur := s[0].Value.Uint64()
	if cur == 0 || goal <= cur {
		return false
	}
	pct := 100 * goal / cur
	if pct <= 150 {
		return false
	}
	old := debug.SetGCPercent(int(min(pct, 1<<20)))
	if old != 100 { // set by the program: not ours to change
		debug.SetGCPercent(old)
		return false
	}
	forEachGC(func() bool {
		metrics.Read(s)
		if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() <= goal {
			return true // not there yet
		}
		debug.SetGCPercent(old)
		return false
	})
	return true
}

// forEachGC calls fn after each garbage collection until it returns false:
// a finalizer set again on its object each time the object is found
// unreachable.
func forEachGC(fn func() bool) {
	type sentinel [32]byte // above the tiny allocator's 16 bytes: an object of its own
	var fin func(*sentinel)
	fin = func(p *sentinel) {
		if fn() {
			runtime.SetFinalizer(p, fin)
		}
	}
	runtime.SetFinalizer(new(sentinel), fin)
}
