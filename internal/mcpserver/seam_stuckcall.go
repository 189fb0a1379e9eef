//go:build sessions_stuckcall

package mcpserver

import "os"

// The test seam of a call stuck in a system call: a binary built with
// -tags sessions_stuckcall, run with STUCKCALL_SEAM_TOOL=<tool> and
// STUCKCALL_SEAM_FIFO=<a FIFO no one writes>, opens that FIFO (an
// open that blocks in the kernel for good) in every call of that tool.
// Never in a release build.
func init() {
	tool, fifo := os.Getenv("STUCKCALL_SEAM_TOOL"), os.Getenv("STUCKCALL_SEAM_FIFO")
	if tool == "" || fifo == "" {
		return
	}
	stuckCall = func(name string) {
		if name == tool {
			if f, err := os.Open(fifo); err == nil {
				f.Close()
			}
		}
	}
}
