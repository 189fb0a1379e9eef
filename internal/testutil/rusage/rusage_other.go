//go:build !unix

package rusage

import "time"

// CPU is not measured on this system: 0.
func CPU() time.Duration { return 0 }

// Sys is not measured on this system: 0.
func Sys() time.Duration { return 0 }

// PeakRSS is not measured on this system.
func PeakRSS() (int64, bool) { return 0, false }
