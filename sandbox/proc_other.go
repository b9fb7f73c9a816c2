//go:build !unix

package sandbox

import (
	"os"
	"os/exec"
)

// prepare leaves cmd as it is: without process groups only the process
// itself can be killed.
func prepare(*exec.Cmd) {}

// KillGroup kills the process; without process groups its children are
// not reached.
func KillGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	_ = p.Kill()
	return nil
}

// SignalStatus reports no signals where processes do not end by them.
func SignalStatus(*os.ProcessState) (int, bool) { return 0, false }

// Renice does nothing where niceness does not exist.
func Renice(*os.Process, int) {}
