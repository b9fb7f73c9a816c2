//go:build !linux

package dirwatch

// Add reports false: directories cannot be watched here.
func Add(...string) bool { return false }

// Generation reports false: directories cannot be watched here.
func Generation() (uint64, bool) { return 0, false }
