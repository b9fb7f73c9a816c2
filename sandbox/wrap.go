package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// eager holds the commands [Command] already routed through the helper,
// so [Start] does not route them twice.
var eager sync.Map // *exec.Cmd -> struct{}

// wrap routes cmd through the helper when the sandbox is active: the
// helper restricts itself, then execs cmd's program with cmd's argv, so
// what runs is exactly what was planned. It returns the call's private
// temp dir ("" when unwrapped), which the caller removes when the child
// is gone.
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
	if _, done := eager.LoadAndDelete(cmd); done {
		return "", nil
	}
	path := cmd.Path
	if !filepath.IsAbs(path) {
		dir := cmd.Dir
		if dir == "" {
			dir, _ = os.Getwd()
		}
		path = filepath.Join(dir, path)
	}
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
	cmd.Args = st.helperArgs(path, argv, tmp)
	cmd.Path = st.helper
	return tmp, nil
}
