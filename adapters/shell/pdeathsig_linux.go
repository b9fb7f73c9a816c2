package shell

import (
	"os/exec"
	"syscall"
)

// dieWithParent asks the kernel to kill the child when talon's thread
// that started it exits, so a killed talon leaves no background process.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
