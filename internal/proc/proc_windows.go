//go:build windows

package proc

import (
	"errors"
	"math"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// stillActive is GetExitCodeProcess's answer for a process that has not
// exited (STILL_ACTIVE, that is STATUS_PENDING).
const stillActive = uint32(windows.STATUS_PENDING)

// probe opens pid for a query: alive when its exit code is still
// STILL_ACTIVE (a process that ended with exit code 259 is taken for alive:
// Windows gives no other answer), gone when no process has that id (the open
// fails with ERROR_INVALID_PARAMETER) or it has exited. A process we may
// not open (another user's, a protected one) is alive, not gone.
func probe(pid int) (alive, gone bool) {
	if pid <= 0 || pid > math.MaxUint32 {
		return false, true
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		switch {
		case errors.Is(err, windows.ERROR_ACCESS_DENIED):
			return true, false
		case errors.Is(err, windows.ERROR_INVALID_PARAMETER):
			return false, true
		}
		return false, false
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true, false // it exists; its state is unknown
	}
	if code == stillActive {
		return true, false
	}
	return false, true
}

// Exists reports whether pid names a running process on this host.
// pid <= 0 never exists.
func Exists(pid int) bool {
	alive, _ := probe(pid)
	return alive
}

// Gone reports whether pid certainly names no running process (no such
// process, or it has exited). Anything we cannot interpret is not proof, so
// Gone is false. pid <= 0 is always gone.
func Gone(pid int) bool {
	_, gone := probe(pid)
	return gone
}

// Detach makes cmd start without a console and in a process group of its
// own (DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP): closing the caller's
// console or pressing Ctrl-C there does not reach it.
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP,
	}
}

// NewGroup makes cmd start in a new process group (CREATE_NEW_PROCESS_GROUP),
// so a Ctrl-C at the caller's console does not reach it.
func NewGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// KillGroup ends a started cmd. Windows has no signal for a process group:
// only the process itself is terminated; what it started may outlive it
// (exec.Cmd.WaitDelay bounds the wait for their output).
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// Background lowers this process's priority for work no one waits for
// (a search index built in the background): the below-normal priority
// class.
func Background() error {
	return windows.SetPriorityClass(windows.CurrentProcess(), windows.BELOW_NORMAL_PRIORITY_CLASS)
}
