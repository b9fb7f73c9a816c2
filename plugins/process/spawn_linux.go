//go:build linux

package process

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// The parent-death signal is delivered when the thread that forked the
// child exits, not when the process does. Go may end an OS thread whose
// goroutine was locked to it, so every plugin is started from one
// goroutine that locks its thread and never returns.
var (
	spawnOnce sync.Once
	spawnCh   chan func()
)

func spawner() {
	runtime.LockOSThread()
	for f := range spawnCh {
		f()
	}
}

// onSpawnThread runs f on the spawning thread and waits for it.
func onSpawnThread(f func()) {
	spawnOnce.Do(func() {
		spawnCh = make(chan func())
		go spawner()
	})
	done := make(chan struct{})
	spawnCh <- func() { defer close(done); f() }
	<-done
}

// setParentDeath makes the kernel kill the child when talon dies.
func setParentDeath(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
