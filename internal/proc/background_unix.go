//go:build unix && !linux

package proc

import "golang.org/x/sys/unix"

// Background lowers this process's priority for work no one waits for
// (a search index built in the background): nice 10.
func Background() error {
	return unix.Setpriority(unix.PRIO_PROCESS, 0, backgroundNice)
}
