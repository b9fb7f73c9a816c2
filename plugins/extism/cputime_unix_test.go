//go:build unix

package extism

import (
	"syscall"
	"time"
)

// cpuTime is the user and system CPU time this process has used. On a
// shared machine it moves less than wall time, which also counts the time
// spent waiting for a CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
