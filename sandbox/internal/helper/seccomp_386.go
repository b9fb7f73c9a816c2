//go:build linux && 386

package helper

// FilterSockets is false on 386, whose socket calls go through
// socketcall(2) and cannot be told apart by number.
func FilterSockets() bool { return false }

// filterSockets installs nothing on 386.
func filterSockets(bool) error { return nil }
