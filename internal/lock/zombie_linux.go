package lock

import (
	"bytes"
	"os"
	"strconv"
)

// zombie reports whether pid is a zombie: it has exited (and released
// everything it held) but its parent has not reaped it yet, so kill(pid, 0)
// still succeeds. Where the reaper is slow (a container whose PID 1 does not
// reap promptly, a runner whose parent exited), a SIGKILLed holder stays a
// zombie for a while; its locks are as dead as the process.
func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// "pid (comm) S …": the state follows the last ')'.
	i := bytes.LastIndexByte(data, ')')
	return i >= 0 && i+2 < len(data) && data[i+2] == 'Z'
}
