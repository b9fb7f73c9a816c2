package workspacetest

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

const supported = true

func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

// setDeathSignal kills the swapper when the test process dies.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
