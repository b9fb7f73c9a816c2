//go:build linux

package dirwatch

import (
	"os"
	"path/filepath"
	"testing"
)

// Each change to a watched directory, and the making of a missing one,
// moves the generation by the time Generation returns.
func TestGenerationMoves(t *testing.T) {
	root := t.TempDir()
	dir, missing := filepath.Join(root, "bin"), filepath.Join(root, "later", "bin")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if !Add(dir, missing) {
		t.Skip("inotify is not available here")
	}
	steps := []struct {
		name   string
		change func() error
	}{
		{"create", func() error { return os.WriteFile(filepath.Join(dir, "a"), []byte("x"), 0o755) }},
		{"chmod", func() error { return os.Chmod(filepath.Join(dir, "a"), 0o644) }},
		{"rename over", func() error {
			if err := os.WriteFile(filepath.Join(root, "b"), []byte("y"), 0o755); err != nil {
				return err
			}
			return os.Rename(filepath.Join(root, "b"), filepath.Join(dir, "a"))
		}},
		{"remove", func() error { return os.Remove(filepath.Join(dir, "a")) }},
		{"missing directory made", func() error { return os.MkdirAll(missing, 0o755) }},
	}
	for _, st := range steps {
		before, ok := Generation()
		if !ok {
			t.Fatal("Generation reports no watch after Add did")
		}
		if again, _ := Generation(); again != before {
			t.Fatalf("%s: the generation moved with nothing changed", st.name)
		}
		if err := st.change(); err != nil {
			t.Fatal(err)
		}
		if after, _ := Generation(); after == before {
			t.Fatalf("%s: the generation did not move", st.name)
		}
		Add(dir, missing)
	}
}
