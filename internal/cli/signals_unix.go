//go:build !windows

package cli

import (
	"os"
	"os/signal"
	"syscall"
)

// raise ends the process by sig as its default handler does.
func raise(sig os.Signal) {
	signal.Reset(sig)
	if s, ok := sig.(syscall.Signal); ok {
		_ = syscall.Kill(os.Getpid(), s)
	}
}
