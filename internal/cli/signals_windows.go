//go:build windows

package cli

import "os"

// raise ends the process as Ctrl-C's default handler does: a signal cannot
// be sent to oneself on Windows, so the code is the shell's 128+2.
func raise(os.Signal) { os.Exit(130) }
