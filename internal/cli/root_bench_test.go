package cli

import "testing"

// BenchmarkNewRoot: what building the command tree costs every process
// (docs/PERFORMANCE.md, "Start-up"): the commands and their flags, no work
// a command may not need.
func BenchmarkNewRoot(b *testing.B) {
	f, _, _ := testFactory(false)
	b.ReportAllocs()
	for b.Loop() {
		NewRoot(f)
	}
}
