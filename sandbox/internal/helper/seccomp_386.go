//go:build linux && 386

package helper

// refuseMPTCP installs nothing on 386, whose socket calls go through
// socketcall(2) and cannot be told apart by number.
func refuseMPTCP() error { return nil }
