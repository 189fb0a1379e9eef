package proc

import "golang.org/x/sys/unix"

// ioprioIdle is IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT (linux/ioprio.h):
// disk time only when no one else wants it.
const ioprioIdle = 3 << 13

// Background lowers this process's priority for work no one waits for
// (a search index built in the background): nice 10, and the idle I/O
// class where the kernel's I/O scheduler honours it.
func Background() error {
	if err := unix.Setpriority(unix.PRIO_PROCESS, 0, backgroundNice); err != nil {
		return err
	}
	// ioprio_set(IOPRIO_WHO_PROCESS, 0: this process, idle class); a
	// kernel without it leaves I/O at its default.
	unix.Syscall(unix.SYS_IOPRIO_SET, 1, 0, ioprioIdle)
	return nil
}
