//go:build !unix

package mcpserver

// fdLimit: no per-process file limit is known here.
func fdLimit() int { return 0 }
