package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether f is an interactive terminal (Linux and
// Android: the TCGETS ioctl succeeds only on a tty).
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
