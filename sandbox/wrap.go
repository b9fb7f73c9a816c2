package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
)

// eager holds the commands [Command] already routed through the helper,
// so [Start] does not route them twice.
var eager sync.Map // *exec.Cmd -> struct{}

// wrap routes cmd through the helper when the sandbox is active: the
// helper (in new PID and mount namespaces where they work) restricts
// itself, then starts cmd's program with cmd's argv, so what runs is
// exactly what was planned, and stays as its init. It returns the call's
// private temp dir ("" when unwrapped), which the caller removes when the
// child is gone.
//
// A program that does not exist is left unwrapped so that starting it
// fails the ordinary way, with [fs.ErrNotExist].
func wrap(cmd *exec.Cmd) (string, error) { return wrapWith(active.Load(), cmd) }

func wrapWith(st *state, cmd *exec.Cmd) (string, error) {
	hardenGit(st, cmd) // git.go: git cannot run programs its config or environment names
	if st == nil || st.status.Mode == Off {
		return "", nil
	}
	if st.refuse != nil {
		return "", st.refuse
	}
	if !st.status.Active || cmd.Process != nil || cmd.Err != nil {
		return "", nil
	}
	st = st.resolved()
	if _, done := eager.LoadAndDelete(cmd); done {
		return "", nil
	}
	path := absCmdPath(cmd)
	if fi, err := os.Stat(path); err != nil || fi.IsDir() {
		return "", nil
	}
	tmp, err := st.callTemp()
	if err != nil {
		return "", err
	}
	argv := cmd.Args
	if len(argv) == 0 {
		argv = []string{cmd.Path}
	}
	if st.ns {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cloneInto(cmd.SysProcAttr, st.userNS)
	}
	death := passDeath(cmd)
	if death > 0 && cmd.SysProcAttr != nil {
		// The death pipe ends the helper when talon's process ends; a
		// parent-death signal would end it with the forking thread.
		clearParentDeath(cmd.SysProcAttr)
	}
	cmd.Args = st.helperArgs(path, argv, tmp, death)
	cmd.Path = st.runner()
	return tmp, nil
}

// absCmdPath returns cmd's program as an absolute path.
func absCmdPath(cmd *exec.Cmd) string {
	path := cmd.Path
	if !filepath.IsAbs(path) {
		dir := cmd.Dir
		if dir == "" {
			dir, _ = os.Getwd()
		}
		path = filepath.Join(dir, path)
	}
	return path
}

// refuseTalon returns [ErrTalonBinary] when path is talon's own
// executable (or the configured helper, which is talon too, or
// talon-sandbox), however it is named.
func refuseTalon(st *state, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil // starting it fails the ordinary way
	}
	if self := selfInfo(); self != nil && os.SameFile(fi, self) {
		return fmt.Errorf("%w (%s)", ErrTalonBinary, path)
	}
	if st = st.resolved(); st != nil { // talon-sandbox is chosen with the deferred probe
		for _, h := range []string{st.helper, st.native} {
			if h == "" {
				continue
			}
			if hi, err := os.Stat(h); err == nil && os.SameFile(fi, hi) {
				return fmt.Errorf("%w (%s)", ErrTalonBinary, path)
			}
		}
	}
	return nil
}

// selfInfo is talon's running executable: /proc/self/exe where it
// exists, which is the file running even after it was replaced.
var selfInfo = sync.OnceValue(func() os.FileInfo {
	if fi, err := os.Stat("/proc/self/exe"); err == nil {
		return fi
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	fi, _ := os.Stat(exe)
	return fi
})
