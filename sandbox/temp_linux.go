package sandbox

import (
	"os"

	"golang.org/x/sys/unix"
)

// removeAfter removes tmp once p has exited, without reaping p (its
// starter waits for it), and sweeps what a killed helper left behind.
// Without a pidfd the dir stays until [Cleanup].
func removeAfter(p *os.Process, tmp string) {
	fd, err := unix.PidfdOpen(p.Pid, 0)
	if err != nil {
		return
	}
	go func() {
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err != unix.EINTR {
				break
			}
		}
		removeTemp(tmp)
		sweep()
	}()
}

func removeTemp(tmp string) {
	if tmp != "" {
		_ = os.RemoveAll(tmp)
	}
}
