//go:build !windows

package shell

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/creack/pty"
)

// Terminal size of a line run with pty: the VT100's, which every program
// handles.
const (
	TerminalRows = 24
	TerminalCols = 80
)

// openTerminal opens a pseudo-terminal of the fixed size.
func openTerminal() (master, slave *os.File, err error) {
	master, slave, err = pty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("open a terminal for pty: %w; run the command without pty", err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Rows: TerminalRows, Cols: TerminalCols}); err != nil {
		_ = master.Close()
		_ = slave.Close()
		return nil, nil, fmt.Errorf("size the terminal for pty: %w", err)
	}
	return master, slave, nil
}

// onTerminal makes cmd the leader of a session of its own whose
// controlling terminal is the descriptor of cmd that is the terminal,
// so that the terminal's Ctrl-C and window changes reach it. A session
// leader leads its own process group too, which is what the spawner
// kills.
func onTerminal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setpgid = false
	for fd, f := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if t, ok := f.(*os.File); ok && isTerminal(t) {
			cmd.SysProcAttr.Setctty = true
			cmd.SysProcAttr.Ctty = fd
			return
		}
	}
}

// isTerminal reports a pseudo-terminal's slave side.
func isTerminal(f *os.File) bool {
	_, err := pty.GetsizeFull(f)
	return err == nil
}
