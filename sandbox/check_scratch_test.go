package sandbox

import (
	"os"
	"testing"
)

// The probes' "outside the workspace" is outside it even when talon runs
// from the temp directory.
func TestScratchOutsideTheWorkspace(t *testing.T) {
	for _, ws := range []string{"", t.TempDir(), os.TempDir()} {
		dir, err := scratchOutside(ws)
		if err != nil {
			t.Fatalf("workspace %q: %v", ws, err)
		}
		if ws != "" && within(absPath(dir), absPath(ws)) {
			t.Errorf("workspace %q: scratch dir %s is inside it", ws, dir)
		}
		_ = os.RemoveAll(dir)
	}
}
