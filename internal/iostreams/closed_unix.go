//go:build unix

package iostreams

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// OutClosed returns a channel closed once nobody reads stdout any more: a
// pipe or socket whose reading end was closed (`sessions watch | head -1`
// after head exits). A long-running command that may have nothing to write
// for hours selects on it to end instead of learning it only at its next
// write. It blocks in poll(2) — no timer, no CPU — and is nil when stdout
// is no pipe or socket (a terminal, a file, a test's buffer).
func (s *IOStreams) OutClosed() <-chan struct{} {
	f, ok := s.Out.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil
	}
	fd := int(f.Fd())
	ch := make(chan struct{})
	go func() {
		// No events asked for: POLLERR and POLLHUP are always reported, and
		// are all a write end gets when its reader goes.
		fds := []unix.PollFd{{Fd: int32(fd)}}
		for {
			_, err := unix.Poll(fds, -1)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				return // unknown: the next write tells
			}
			if fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
				close(ch)
				return
			}
		}
	}()
	return ch
}
