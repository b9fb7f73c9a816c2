//go:build !linux

package sandbox

import "os/exec"

// StartNice is [Start] with the child's process group reniced by n right
// after it starts.
func StartNice(cmd *exec.Cmd, n int) error { return startReniced(cmd, n) }
