//go:build !unix && !windows

package receipts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// tryLock fails: this platform has no advisory file locks, and a store
// without one could be written by two processes at once.
func tryLock(*os.File) (bool, error) {
	return false, fmt.Errorf("file locking: %w on this platform; write receipts on Linux, macOS, BSD or Windows", errors.ErrUnsupported)
}

func waitLock(f *os.File) error {
	_, err := tryLock(f)
	return err
}

func unlock(*os.File) {}

func syncDir(string) error { return nil }

func checkKeyMode(string, fs.FileMode) error { return nil }
