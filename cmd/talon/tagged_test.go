//go:build talon_testtools

package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestTaggedScripts runs the scripts that need a binary built with the
// test-only feature "testtools" (go test -tags talon_testtools).
func TestTaggedScripts(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script-tagged"))
}
