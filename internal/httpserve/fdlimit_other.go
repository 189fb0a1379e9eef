//go:build !unix

package httpserve

// fdLimit: no per-process file limit is known here.
func fdLimit() int { return 0 }
