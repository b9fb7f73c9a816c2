//go:build !linux

package process

import "os/exec"

// onSpawnThread runs f; only Linux ties the parent-death signal to a thread.
func onSpawnThread(f func()) { f() }

// setParentDeath does nothing outside Linux: the SDK's watchdog ends the
// plugin when talon's standard input pipe closes or its parent changes.
func setParentDeath(*exec.Cmd) {}
