//go:build !unix

package fleet

import (
	"fmt"
	"os"
)

// tryLock opens path without a lock where talon has no file locks: two
// shippers of one chain then both copy it, and the database keeps each
// record once.
func tryLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}
