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
var thpMode = func() string {
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
	if strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") || !bursts.CompareAndSwap(false, true) {
		return noop
	}
	// "always" gives huge pages without advice; "never" not even with it.
	if thpMode() != "madvise" {
		return noop
	}
	p := make([]byte, n) // fresh from the OS: not touched, not zeroed
	start := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
	lo := (start + hugePage - 1) &^ (hugePage - 1)
	hi := (start + uintptr(n)) &^ (hugePage - 1)
	runtime.KeepAlive(p)
	p = nil // only addresses are kept: the collection below frees p
	if hi <= lo || madvise(lo, hi-lo, syscall.MADV_HUGEPAGE) != nil {
		return noop
	}
	runtime.GC() // p's pages go back to the heap (swept by the time GC returns)
	return func() { _ = madvise(lo, hi-lo, syscall.MADV_NOHUGEPAGE) }
}

func madvise(addr, n uintptr, advice int) error {
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, addr, n, uintptr(advice)); e != 0 {
		return e
	}
	return nil
}
