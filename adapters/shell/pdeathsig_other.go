//go:build !linux

package shell

import "os/exec"

// dieWithParent does nothing where the OS has no parent-death signal;
// [Manager.Close] still kills every process when talon exits normally.
func dieWithParent(*exec.Cmd) {}
