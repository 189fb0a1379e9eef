package startheap

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func heapGoal() uint64 {
	s := []metrics.Sample{{Name: goalMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// gcPercent is GOGC now.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

var sink [][]byte

// TestAdjustRaisesThenRestores: the heap's goal starts at the size asked
// for, and once the heap has grown past it a collection gives GOGC back.
func TestAdjustRaisesThenRestores(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Skip("GOGC is set in the environment")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	const goal = 32 << 20
	if !Adjust(goal) {
		t.Fatalf("Adjust changed nothing (heap goal %d)", heapGoal())
	}
	if g := heapGoal(); g < goal*9/10 || g > goal*11/10 {
		t.Fatalf("heap goal %d after Adjust(%d)", g, goal)
	}
	if p := gcPercent(); p <= 100 {
		t.Fatalf("GOGC %d after Adjust", p)
	}
	// A live heap past the goal: the collections that follow give GOGC
	// back (the finalizer runs on its own goroutine: wait for it).
	for range 48 {
		sink = append(sink, make([]byte, 1<<20))
	}
	deadline := time.Now().Add(10 * time.Second)
	for gcPercent() != 100 {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC still %d with a live heap of 48 MiB past a goal of 32 MiB", gcPercent())
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	sink = nil
}

// TestAdjustLeavesAChosenGOGC: GOGC set in the environment, or by the
// program, is left as it is.
func TestAdjustLeavesAChosenGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	debug.SetGCPercent(300)
	if Adjust(256<<20) || gcPercent() != 300 {
		t.Fatalf("Adjust changed a GOGC the program set: now %d", gcPercent())
	}
	debug.SetGCPercent(100)
	t.Setenv("GOGC", "100")
	if Adjust(256<<20) || gcPercent() != 100 {
		t.Fatalf("Adjust changed GOGC though the environment sets it: now %d", gcPercent())
	}
}

// BurstOnto keeps what *end did before and adds the burst's end; a nil
// end asks for no burst.
func TestBurstOntoChains(t *testing.T) {
	calls := 0
	end := func() { calls++ }
	BurstOnto(&end, 1) // below burstMin: its own end does nothing
	BurstOnto(&end, 2)
	end()
	if calls != 1 {
		t.Fatalf("the chained end ran the first end %d times, want 1", calls)
	}
	BurstOnto(nil, burstMax) // no panic, nothing to end
}
