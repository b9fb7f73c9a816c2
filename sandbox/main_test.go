package sandbox

import (
	"fmt"
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
	// A role's variable set at all, even empty, selects it: a child that
	// fell through to m.Run would run the whole suite again, and start
	// the same child.
	for env, role := range testRoles {
		if v, ok := os.LookupEnv(env); ok {
			os.Exit(role(v))
		}
	}
	code := m.Run()
	removeNative()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
