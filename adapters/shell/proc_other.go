//go:build !unix

package shell

import (
	"os"
	"os/exec"
)

// startInGroup starts the process. Without process groups only the
// process itself can be killed.
func startInGroup(cmd *exec.Cmd) error { return cmd.Start() }

// killGroup kills the process.
func killGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	_ = p.Kill()
	return nil
}

func signalStatus(*os.ProcessState) (int, bool) { return 0, false }

func setNice(int, int) {}
