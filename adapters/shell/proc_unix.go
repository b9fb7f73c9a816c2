//go:build unix

package shell

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// startInGroup is the one place the tool starts a process: in a process
// group of its own, so the command and everything it starts can be killed
// together. A sandboxing spawner takes its place.
func startInGroup(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	return cmd.Start()
}

// killGroup sends SIGKILL to the process group led by p. A group that is
// already gone is not an error.
func killGroup(p *os.Process) error {
	if p == nil || p.Pid <= 0 {
		return nil
	}
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// signalStatus is 128+N for a process ended by signal N.
func signalStatus(st *os.ProcessState) (int, bool) {
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return 128 + int(ws.Signal()), true
}

// setNice raises the niceness of the group led by pid by n, as nice(1)
// adds to the caller's niceness. A refused change (lowering niceness needs
// privileges) leaves the command at its inherited niceness, as nice(1)
// does after its warning.
func setNice(pid, n int) {
	if n == 0 {
		return
	}
	cur, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		return
	}
	if runtime.GOOS == "linux" {
		cur = 20 - cur // the raw system call reports 20 - nice
	}
	_ = unix.Setpriority(unix.PRIO_PGRP, pid, min(max(cur+n, -20), 19))
}
