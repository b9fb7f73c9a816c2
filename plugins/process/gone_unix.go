//go:build unix

package process

import (
	"errors"
	"syscall"
)

// processGone reports whether no process has the pid.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
