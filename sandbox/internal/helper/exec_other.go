//go:build !linux

package helper

import "os"

// Exec refuses: the helper restricts processes only on Linux.
func Exec([]string) int {
	os.Stderr.WriteString("talon sandbox: the helper runs only on Linux\n")
	return 126
}

// ABI is 0: Landlock exists only on Linux.
func ABI() int { return 0 }

// FilterSockets is false: there is no seccomp filter outside Linux.
func FilterSockets() bool { return false }
