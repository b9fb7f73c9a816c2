package sandbox

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The sandbox re-executes this test binary as its helper (and as the
	// probe child), the way talon re-executes itself.
	if len(os.Args) > 1 && os.Args[1] == HelperCommand {
		os.Exit(Main(os.Args[2:]))
	}
	goleak.VerifyTestMain(m)
}
