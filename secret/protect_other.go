//go:build !linux

package secret

// hide has nothing to do outside Linux: there is no /proc/<pid>/environ to
// overwrite, and other systems decide who may read a process's memory by
// their own rules (on macOS, only root and debuggers the user allowed).
func hide(func(string) bool) error { return nil }

// seal has nothing to do outside Linux.
func seal() error { return nil }
