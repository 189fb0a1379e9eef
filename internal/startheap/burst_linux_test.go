package startheap

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// vmaOf reads /proc/self/smaps for the mapping holding addr: its
// THPeligible flag and its AnonHugePages in KiB.
func vmaOf(t *testing.T, addr uintptr) (eligible bool, hugeKB int) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			lo, hi, _ := strings.Cut(fields[0], "-")
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if in {
				return eligible, hugeKB // the next mapping: ours ended
			}
			in = err1 == nil && err2 == nil && uint64(addr) >= a && uint64(addr) < b
			continue
		}
		if !in || len(fields) < 2 {
			continue
		}
		switch fields[0] {
		case "THPeligible:":
			eligible = fields[1] == "1"
		case "AnonHugePages:":
			hugeKB, _ = strconv.Atoi(fields[1])
		}
	}
	if !in {
		t.Fatalf("no mapping holds %#x", addr)
	}
	return eligible, hugeKB
}

var (
	kept       [][]byte
	burstTests int
)

// A burst's allocations are carved from huge pages while it lasts, and its
// end withdraws the advice from their mapping.
func TestBurstGivesHugePages(t *testing.T) {
	if m := thpMode(); m != "madvise" {
		t.Skipf("transparent huge pages are %q here, not given on advice", m)
	}
	if strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") {
		t.Skip("GODEBUG=disablethp=1")
	}
	if burstTests++; burstTests > 1 {
		// the burst's huge pages are the heap's now: a second run (-count)
		// would find its allocations there, not in a burst of its own
		t.Skip("once a process")
	}
	if end := Burst(burstMin - 1); end == nil {
		t.Fatal("Burst returned no end")
	}
	if bursts.Load() {
		t.Fatal("a burst below burstMin took the process's burst")
	}
	t.Cleanup(func() {
		kept = nil
		runtime.GC() // the heap as it was, for the tests after (also when this one fails)
	})
	const n = 24 << 20
	end := Burst(n)
	if !bursts.Load() {
		t.Fatal("Burst did not run")
	}
	// 16 MiB in 64 KiB pieces, each touched: most of it from the burst's
	// huge pages.
	for range 256 {
		b := make([]byte, 64<<10)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		kept = append(kept, b)
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(kept[len(kept)/2])))
	eligible, hugeKB := vmaOf(t, addr)
	if !eligible || hugeKB < 2048 {
		t.Fatalf("during the burst: the heap's mapping at %#x THPeligible %v, AnonHugePages %d kB", addr, eligible, hugeKB)
	}
	end()
	if eligible, _ := vmaOf(t, addr); eligible {
		t.Fatalf("after the burst's end the mapping at %#x is still eligible for huge pages", addr)
	}
	// one burst a process: the second runs no collection
	collected := false
	testHookBurstGC = func() { collected = true }
	defer func() { testHookBurstGC = nil }()
	p := Burst(n)
	if collected {
		t.Fatal("a second burst ran a collection")
	}
	p()
}
