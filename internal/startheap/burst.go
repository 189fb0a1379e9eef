package startheap

// Burst prepares the heap for a command about to allocate about n bytes
// that it keeps until it exits (`list --json --limit 10000`: 14 MiB of
// entries and rows; a search or a usage count over 10,000 sessions about
// as much), and returns the function that ends the burst.
//
// On some virtual machines a fresh 4 KiB page costs ~15 µs to fault in, so
// such a command spends most of its time faulting in its own heap (4,400
// faults, 2/3 of its 105 ms). On Linux, where transparent huge pages are
// given on advice (the default "madvise" mode), Burst grows the heap by n
// bytes at once, advises huge pages (MADV_HUGEPAGE) under them and under
// the arena the heap allocates from next, and gives them back to the heap
// with a collection, so that the next allocations are carved from 2 MiB
// pages: a few faults instead of hundreds per MiB. The collection is the
// price (~1-3 ms at a young heap), so a burst below burstMin, a second
// burst in the process, or one under GODEBUG=disablethp=1 does nothing.
// The returned function withdraws the advice (MADV_NOHUGEPAGE) so that a
// long-lived process (the MCP server's first big list) keeps no range the
// kernel's khugepaged could fill to 2 MiB pages later; the pages already
// huge stay as they are, heap like any other.
//
// Elsewhere, and on Linux in another mode, Burst does nothing.
func Burst(n int) (end func()) {
	if n < burstMin {
		return func() {}
	}
	return burst(min(n, burstMax))
}

// BurstOnto is Burst(n) with its end chained onto *end, for an operation
// that may ask for a burst at each of several stores (the first big
// enough takes the process's one burst): the caller runs *end once done.
// A nil end asks for none.
func BurstOnto(end *func(), n int) {
	if end == nil {
		return
	}
	prev, e := *end, Burst(n)
	*end = func() { prev(); e() }
}

const (
	// burstMin: below it the collection costs about what the huge pages save.
	burstMin = 4 << 20
	// burstMax: a burst's heap growth at most, half the start heap's goal
	// (Goal), so that the growth itself starts no collection.
	burstMax = Goal / 2
)
