package patch

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/talonhq/talon/workspace"
)

var fuzzSeeds = []string{
	multiPatch,
	"--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n",
	"--- /dev/null\n+++ b/new/dir/x\n@@ -0,0 +1 @@\n+x\n",
	"--- a/../outside/secret.txt\n+++ b/../outside/secret.txt\n@@ -1 +1 @@\n-s\n+x\n",
	"--- a/out/secret.txt\n+++ b/out/secret.txt\n@@ -1 +1 @@\n-s\n+x\n",
	"--- /dev/null\n+++ b/out/new.txt\n@@ -0,0 +1 @@\n+x\n",
	"diff --git a/a.txt b/out/x\nsimilarity index 100%\nrename from a.txt\nrename to out/x\n",
	"diff --git a/a.txt b/../x\nsimilarity index 100%\ncopy from a.txt\ncopy to ../x\n",
	"diff --git a/b.txt b/b.txt\ndeleted file mode 100644\n--- a/b.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-alpha\n-beta\n",
	"--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n one\r\n-two\r\n+2\r\n",
	"--- a/a.txt\n+++ b/a.txt\n@@ -99999999999999999 +1 @@\n-x\n+y\n",
	"--- a/a.txt\n+++ b/a.txt\n@@ -1,0 +1,0 @@\n",
	"diff --git a/a.txt b/a.txt\nold mode 100644\nnew mode 120000\n",
}

// FuzzApplyPatch applies arbitrary patches to a small workspace next to a
// directory it must never touch (reachable through a symbolic link inside
// the workspace). It must never panic and never change anything outside.
func FuzzApplyPatch(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, 1)
	}
	f.Add("--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-one\n+1\n", 0)
	f.Fuzz(func(t *testing.T, patch string, strip int) {
		parent := t.TempDir()
		outside := filepath.Join(parent, "outside")
		dir := filepath.Join(parent, "ws")
		for _, d := range []string{outside, dir} {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		write := func(p, s string) {
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(filepath.Join(outside, "secret.txt"), "s\n")
		write(filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
		write(filepath.Join(dir, "b.txt"), "alpha\nbeta\n")
		write(filepath.Join(dir, "w.txt"), "one\r\ntwo\r\n")
		if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
			t.Fatal(err)
		}
		root, err := workspace.New(dir)
		if err != nil {
			t.Fatal(err)
		}
		ap := New(root, Options{})
		// The real writes fsync, which makes fuzzing crawl; these check
		// every path the write phase touches instead, and skip the sync.
		inside := func(op, p string) {
			if !root.Contains(p) || p == root.Dir() {
				t.Fatalf("%s %s: outside the workspace", op, p)
			}
		}
		ap.fs = fileSystem{
			write: func(p string, data []byte, perm fs.FileMode) error {
				inside("write", p)
				return os.WriteFile(p, data, perm)
			},
			remove: func(p string) error { inside("remove", p); return os.Remove(p) },
			chmod:  func(p string, perm fs.FileMode) error { inside("chmod", p); return os.Chmod(p, perm) },
			mkdir:  func(p string, perm fs.FileMode) error { inside("mkdir", p); return os.Mkdir(p, perm) },
		}
		raw, _ := json.Marshal(map[string]any{"patch": patch, "strip": strip})
		_, _ = ap.Assess(raw)
		if _, err := ap.Execute(context.Background(), raw); err != nil {
			t.Fatalf("Execute returned an error: %v", err)
		}
		names := func(d string) []string {
			entries, _ := os.ReadDir(d)
			var out []string
			for _, e := range entries {
				out = append(out, e.Name())
			}
			return out
		}
		if got := names(parent); !slices.Equal(got, []string{"outside", "ws"}) {
			t.Fatalf("the patch created %v next to the workspace", got)
		}
		if got := names(outside); !slices.Equal(got, []string{"secret.txt"}) {
			t.Fatalf("the patch created %v outside the workspace", got)
		}
		if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "s\n" {
			t.Fatal("the patch changed a file outside the workspace")
		}
	})
}

// FuzzApplyText applies parsed hunks to arbitrary content: no panic, and a
// result or rejects, never both.
func FuzzApplyText(f *testing.F) {
	f.Add("one\ntwo\nthree\n", "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n")
	f.Add("a\r\nb", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n")
	f.Add("", "@@ -0,0 +1 @@\n+x\n")
	f.Add("x\n", "@@ -5,0 +6 @@\n+y\n")
	f.Fuzz(func(t *testing.T, content, hunks string) {
		files, _, err := gitdiff.Parse(stringsReader("--- a/f\n+++ b/f\n" + hunks))
		if err != nil || len(files) != 1 {
			return
		}
		out, rej := applyText("f", []byte(content), files[0].TextFragments)
		if out != nil && rej != nil {
			t.Fatal("both a result and rejects")
		}
	})
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
