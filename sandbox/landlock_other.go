//go:build !linux

package sandbox

import (
	"fmt"
	"os"
)

func landlockABI() int { return 0 }

func unsupportedReason() string { return "Landlock exists only on Linux" }

// Main is the helper entry; without Landlock it refuses every request.
func Main(args []string) int {
	fmt.Fprintf(os.Stderr, "talon sandbox: %v: the helper runs only on Linux\n", ErrHelperUsage)
	return 126
}
