//go:build unix

package wasm

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time so far. Benchmarks
// report it per operation next to wall time, which on a busy machine
// counts time spent waiting for a CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
