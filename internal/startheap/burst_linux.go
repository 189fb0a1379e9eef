package startheap

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// bursts: the first burst of the process took the heap's growth (the
// later ones do nothing).
var bursts atomic.Bool

const hugePage = 2 << 20

// thpMode is where transparent huge pages are given, as the kernel says
// ("always", "madvise", "never"; "" when it does not say).
func thpMode() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	if i := bytes.IndexByte(b, '['); i >= 0 {
		if j := bytes.IndexByte(b[i:], ']'); j > 0 {
			return string(b[i+1 : i+j])
		}
	}
	return ""
}

func burst(n int) func() {
	noop := func() {}
	if unsafe.Sizeof(uintptr(0)) != 8 || strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") ||
		!bursts.CompareAndSwap(false, true) {
		return noop
	}
	// "always" gives huge pages without advice; "never" not even with it.
	if thpMode() != "madvise" {
		return noop
	}
	// Where the heap allocates next: a large object comes from its lowest
	// free pages. The heap's base is random (Go 1.26) and so is the room
	// left in its arena: n bytes may not fit there, and then they come
	// from a new arena while the rest of this one is made free, below
	// them. So the advice covers the whole arena of probe and p's bytes.
	probe := make([]byte, 64<<10)
	// In a young heap (a command's), p is fresh from the OS: neither
	// touched nor zeroed. (A long-lived process whose heap has room may
	// have it zeroed from its free pages, once.)
	p := make([]byte, n)
	at := uintptr(unsafe.Pointer(unsafe.SliceData(probe))) &^ (arenaBytes - 1)
	spans := [][2]uintptr{{at, at + arenaBytes}}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
	if lo, hi := (start+hugePage-1)&^(hugePage-1), (start+uintptr(n))&^(hugePage-1); lo < hi && (lo < at || hi > at+arenaBytes) {
		spans = append(spans, [2]uintptr{lo, hi})
	}
	runtime.KeepAlive(probe)
	runtime.KeepAlive(p)
	probe, p = nil, nil // only addresses are kept: the collection below frees both
	for _, r := range spans {
		// (ENOMEM for a hole in the range; the mapped parts have the advice)
		_ = madvise(r[0], r[1]-r[0], syscall.MADV_HUGEPAGE)
	}
	if testHookBurstGC != nil {
		testHookBurstGC()
	}
	runtime.GC() // their pages go back to the heap (swept by the time GC returns)
	return func() {
		for _, r := range spans {
			_ = madvise(r[0], r[1]-r[0], syscall.MADV_NOHUGEPAGE)
		}
	}
}

// testHookBurstGC, when set, runs before a burst's collection.
var testHookBurstGC func()

// arenaBytes is the Go heap's arena on 64-bit Linux (runtime's
// heapArenaBytes): arenas are aligned to it.
const arenaBytes = 64 << 20

func madvise(addr, n uintptr, advice int) error {
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, addr, n, uintptr(advice)); e != 0 {
		return e
	}
	return nil
}
