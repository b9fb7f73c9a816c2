//go:build !linux && !android && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd && !windows

package cli

import "os"

// isTerminal reports false where talon has no way to ask: prompts then
// behave as they do for a pipe and never block waiting for an answer.
func isTerminal(*os.File) bool { return false }
