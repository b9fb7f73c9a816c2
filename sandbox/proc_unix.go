//go:build unix

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// prepare makes cmd start in a process group of its own, so it and
// everything it starts can be killed together. A command that starts a
// session of its own (a line on a terminal) leads a new group already,
// and may not set one after.
func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = !cmd.SysProcAttr.Setsid
}

// KillGroup sends SIGKILL to the process group led by p, children and
// grandchildren included. A nil process or a group that is already gone is
// not an error.
func KillGroup(p *os.Process) error {
	if p == nil || p.Pid <= 0 {
		return nil
	}
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// SignalStatus returns 128+N for a process ended by signal N, the status a
// shell reports, and false for a process that exited on its own.
func SignalStatus(st *os.ProcessState) (int, bool) {
	if st == nil {
		return 0, false
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return 128 + int(ws.Signal()), true
}

// Renice raises the niceness of the process group led by p by n, the way
// nice(1) adds to the caller's niceness. A refused change (lowering the
// niceness needs privileges) leaves the group where it was, as nice(1)
// does after its warning.
func Renice(p *os.Process, n int) {
	if p == nil || n == 0 {
		return
	}
	cur, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		return
	}
	if runtime.GOOS == "linux" {
		cur = 20 - cur // the raw system call reports 20 - nice
	}
	_ = unix.Setpriority(unix.PRIO_PGRP, p.Pid, min(max(cur+n, -20), 19))
}
