//go:build unix

package httpserve

import "syscall"

// fdLimit is the process's limit of open files (its soft RLIMIT_NOFILE),
// 0 when unknown or beyond an int.
func fdLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}
