//go:build unix

package main

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// runDocProgram runs a console block's program in a process group of its
// own and returns its exit status; the group is killed when ctx ends and
// when the program has exited, so nothing it started outlives the command.
func runDocProgram(ctx context.Context, dir string, env, args []string, out io.Writer) (int, error) {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ctx.Err() == nil:
		return ee.ExitCode(), nil
	case err != nil:
		return 0, err
	}
	return 0, nil
}
