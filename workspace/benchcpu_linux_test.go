package workspace_test

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time of the calling thread (user and system, so the
// system calls the file operations make count), or 0 where unknown. The
// benchmark locks its goroutine to one thread while it measures.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
