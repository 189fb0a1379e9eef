//go:build !unix

package metrics

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
