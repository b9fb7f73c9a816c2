package workspace_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/talonhq/talon/workspace"
)

func TestWriteFileAtomic(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("permission bits are not kept on windows")
	}
	tests := []struct {
		name     string
		existing *os.FileMode // nil: no file before the write
		perm     os.FileMode
		wantMode os.FileMode
	}{
		{name: "new file gets perm", perm: 0o640, wantMode: 0o640},
		{name: "new private file", perm: 0o600, wantMode: 0o600},
		{name: "overwrite keeps mode", existing: ptr(os.FileMode(0o755)), perm: 0o644, wantMode: 0o755},
		{name: "overwrite keeps read-only mode", existing: ptr(os.FileMode(0o444)), perm: 0o644, wantMode: 0o444},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.txt")
			if tt.existing != nil {
				write(t, path, "old content that is longer than the new one\n")
				if err := os.Chmod(path, *tt.existing); err != nil {
					t.Fatal(err)
				}
			}
			if err := workspace.WriteFileAtomic(path, []byte("new\n"), tt.perm); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != "new\n" {
				t.Fatalf("content = %q, %v", got, err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tt.wantMode {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.wantMode)
			}
			assertOnlyEntries(t, dir, "f.txt")
		})
	}
}

func TestWriteFileAtomicFailures(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string
	}{
		{name: "directory", setup: func(t *testing.T, dir string) string {
			mkdir(t, dir, "d")
			return filepath.Join(dir, "d")
		}},
		{name: "missing parent", setup: func(t *testing.T, dir string) string {
			return filepath.Join(dir, "missing", "f.txt")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tt.setup(t, dir)
			before := entries(t, dir)
			if err := workspace.WriteFileAtomic(path, []byte("x"), 0o644); err == nil {
				t.Fatal("WriteFileAtomic succeeded, want an error")
			}
			if after := entries(t, dir); len(after) != len(before) {
				t.Errorf("entries changed from %v to %v: temporary file left behind", before, after)
			}
		})
	}
}

func TestWriteFileAtomicReplacesLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	link := filepath.Join(dir, "link.txt")
	write(t, target, "target\n")
	symlink(t, "target.txt", link)
	if err := workspace.WriteFileAtomic(link, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "target\n" {
		t.Errorf("link target changed to %q; WriteFileAtomic must not follow a link", got)
	}
	fi, err := os.Lstat(link)
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("link.txt is %v (%v), want a regular file", fi.Mode(), err)
	}
}

func ptr[T any](v T) *T { return &v }

func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func assertOnlyEntries(t *testing.T, dir string, want ...string) {
	t.Helper()
	got := entries(t, dir)
	if len(got) != len(want) {
		t.Fatalf("entries = %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("entries = %v, want %v", got, want)
		}
	}
}
