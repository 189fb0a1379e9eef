//go:build !linux

package mcpserver_test

import "time"

// procCPU: only read on Linux (/proc).
func procCPU(int) (time.Duration, bool) { return 0, false }
