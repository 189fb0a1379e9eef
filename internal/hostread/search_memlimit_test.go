package hostread

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestSearchMemoryLimitOverLiveHeap: a search's soft memory limit is
// searchMemoryLimit over what the process holds live (a warm process
// holding more than 40 MiB ran the collector after every megabyte), moved
// by each search, and a limit set by someone else (GOMEMLIMIT, the UI) is
// left as it is.
func TestSearchMemoryLimitOverLiveHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer func() { searchLimit = 0 }()
	searchLimit = 0
	held := make([]byte, 64<<20) // live, noscan
	for i := range held {
		held[i] = byte(i)
	}
	runtime.GC()
	limitMemory()
	if got := debug.SetMemoryLimit(-1); got < searchMemoryLimit+64<<20 {
		t.Errorf("limit %d MiB with 64 MiB live: want at least %d MiB", got>>20, (searchMemoryLimit+64<<20)>>20)
	}
	runtime.KeepAlive(held)
	held = nil
	runtime.GC()
	limitMemory() // the next search: the limit follows the live heap down
	if got := debug.SetMemoryLimit(-1); got >= searchMemoryLimit+64<<20 {
		t.Errorf("limit %d MiB after the 64 MiB were freed: it did not move", got>>20)
	}
	debug.SetMemoryLimit(123 << 20) // someone else's
	limitMemory()
	if got := debug.SetMemoryLimit(-1); got != 123<<20 {
		t.Errorf("limit %d MiB: another's limit of 123 MiB was changed", got>>20)
	}
}
