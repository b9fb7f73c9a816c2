//go:build linux

package sandbox

import (
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// StartNice is [Start] with the child's niceness raised by n, as nice(1)
// does, from the child's first instruction on. Linux keeps niceness per
// thread and a child inherits its forking thread's, so the child is forked
// from a thread of its own whose niceness was raised; that thread is
// thrown away with its goroutine (it is never unlocked), since lowering it
// back would need privileges. Outside the sandbox a child with a
// parent-death signal needs its forking thread to live as long as it
// does, so it is reniced right after it starts instead; under the sandbox
// the helper ends with talon's process through a pipe and needs no such
// signal.
func StartNice(cmd *exec.Cmd, n int) error {
	if n == 0 {
		return Start(cmd)
	}
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Pdeathsig != 0 && !wrapsWithDeathPipe(active.Load()) {
		return startReniced(cmd, n)
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if cur, err := unix.Getpriority(unix.PRIO_PROCESS, 0); err == nil {
			// On Linux PRIO_PROCESS with who 0 is the calling thread, and
			// the raw system call reports 20 - nice.
			_ = unix.Setpriority(unix.PRIO_PROCESS, 0, min(max(20-cur+n, -20), 19))
		}
		errc <- Start(cmd)
	}()
	return <-errc
}
