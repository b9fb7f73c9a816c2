//go:build unix && !linux

package workspace

import "os"

// openBeneath always defers to the walk where openat2 does not exist.
func (h handle) openBeneath(string, int, string) (*os.File, bool) { return nil, false }

// openDirBeneath always defers to the walk.
func (h handle) openDirBeneath(string) (handle, bool) { return handle{}, false }
