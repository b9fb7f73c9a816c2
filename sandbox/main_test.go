package sandbox

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// testRoles are the parts this test binary plays when started with the
// variable set (to the part's argument).
var testRoles = map[string]func(string) int{}

func TestMain(m *testing.M) {
	// The sandbox re-executes this test binary as its helper (and as the
	// probe child), the way talon re-executes itself.
	if len(os.Args) > 1 && os.Args[1] == HelperCommand {
		os.Exit(Main(os.Args[2:]))
	}
	for env, role := range testRoles {
		if v := os.Getenv(env); v != "" {
			os.Exit(role(v))
		}
	}
	goleak.VerifyTestMain(m)
}
