//go:build unix

package server

import (
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// readerGone returns a channel closed when nobody is left to read w: the
// read end of a pipe or socket was closed. It watches until stop closes;
// for other writers it never fires.
func readerGone(w io.Writer, stop <-chan struct{}) <-chan struct{} {
	gone := make(chan struct{})
	f, ok := w.(*os.File)
	if !ok {
		return gone
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return gone
	}
	fd := int(f.Fd())
	go func() {
		fds := []unix.PollFd{{Fd: int32(fd)}}
		for {
			select {
			case <-stop:
				return
			default:
			}
			n, err := unix.Poll(fds, 200)
			if err != nil && !errors.Is(err, syscall.EINTR) {
				return
			}
			if n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
				close(gone)
				return
			}
		}
	}()
	return gone
}
