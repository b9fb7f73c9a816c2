//go:build !linux

package sandbox

import (
	"os/exec"
	"syscall"
)

func probeNamespaces(string, bool) (bool, string) {
	return false, "PID and mount namespaces exist only on Linux"
}

func useUserNS() bool { return false }

func cloneInto(*syscall.SysProcAttr, bool) {}

func passDeath(*exec.Cmd) int { return 0 }

func setSubreaper(bool) {}

func sweep() {}

func setSweep(bool) {}

func clearParentDeath(*syscall.SysProcAttr) {}
