//go:build !linux

package lock

// FlockHolder returns the pid holding an flock on path; only known on Linux
// (from /proc/locks), so always 0 here.
func FlockHolder(path string) int { return 0 }
