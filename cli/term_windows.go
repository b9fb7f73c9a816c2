package cli

import (
	"os"

	"golang.org/x/sys/windows"
)

// isTerminal reports whether f is an interactive console: only a console
// handle has a console mode.
func isTerminal(f *os.File) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil
}
