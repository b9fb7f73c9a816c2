package patch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// files maps workspace-relative names to content; in wants, a "\x00gone"
// value means the file must not exist.
type files map[string]string

const gone = "\x00gone"

func setup(t testing.TB, fs files) (string, *ApplyPatch) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range fs {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, New(root, Options{})
}

func argsJSON(patch string, strip ...int) json.RawMessage {
	m := map[string]any{"patch": patch}
	if len(strip) > 0 {
		m["strip"] = strip[0]
	}
	b, _ := json.Marshal(m)
	return b
}

func execute(t testing.TB, ap *ApplyPatch, raw json.RawMessage) tool.Result {
	t.Helper()
	res, err := ap.Execute(context.Background(), raw)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return res
}

func checkFiles(t *testing.T, dir string, want files) {
	t.Helper()
	for name, content := range want {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if content == gone {
			if err == nil {
				t.Errorf("%s still exists", name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if string(got) != content {
			t.Errorf("%s = %q, want %q", name, got, content)
		}
	}
}

const multiPatch = `diff --git a/a.txt b/a.txt
index 1111111..2222222 100644
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
diff --git a/b.txt b/b.txt
--- a/b.txt
+++ b/b.txt
@@ -1,2 +1,3 @@
 alpha
+inserted
 beta
diff --git a/docs/new.md b/docs/new.md
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/docs/new.md
@@ -0,0 +1,2 @@
+# New
+text
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 4444444..0000000
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-gone
-soon
`

func TestApply(t *testing.T) {
	tests := []struct {
		name   string
		before files
		patch  string
		strip  []int
		after  files
		text   []string
	}{
		{
			name:   "several files: modify, create, delete",
			before: files{"a.txt": "one\ntwo\nthree\n", "b.txt": "alpha\nbeta\n", "old.txt": "gone\nsoon\n"},
			patch:  multiPatch,
			after:  files{"a.txt": "one\nTWO\nthree\n", "b.txt": "alpha\ninserted\nbeta\n", "docs/new.md": "# New\ntext\n", "old.txt": gone},
			text:   []string{"applied 4 hunks to 4 files", "modified a.txt (+1 -1)", "created docs/new.md (+2 -0)", "deleted old.txt"},
		},
		{
			name:   "rename with a change",
			before: files{"src/old.go": "package x\n\nfunc A() {}\n"},
			patch: `diff --git a/src/old.go b/pkg/new.go
similarity index 80%
rename from src/old.go
rename to pkg/new.go
index 1111111..2222222 100644
--- a/src/old.go
+++ b/pkg/new.go
@@ -1,3 +1,3 @@
-package x
+package y
 
 func A() {}
`,
			after: files{"src/old.go": gone, "src": gone, "pkg/new.go": "package y\n\nfunc A() {}\n"},
			text:  []string{"renamed src/old.go -> pkg/new.go"},
		},
		{
			name:   "pure rename",
			before: files{"a.txt": "x\n"},
			patch:  "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n",
			after:  files{"a.txt": gone, "b.txt": "x\n"},
		},
		{
			name:   "copy",
			before: files{"a.txt": "x\ny\n"},
			patch:  "diff --git a/a.txt b/c.txt\nsimilarity index 90%\ncopy from a.txt\ncopy to c.txt\n--- a/a.txt\n+++ b/c.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n",
			after:  files{"a.txt": "x\ny\n", "c.txt": "x\nz\n"},
		},
		{
			name:   "traditional diff with a/ and b/",
			before: files{"lib/m.c": "int a;\nint b;\n"},
			patch:  "--- a/lib/m.c\t2024-01-01 00:00:00.000000000 +0000\n+++ b/lib/m.c\t2024-01-02 00:00:00.000000000 +0000\n@@ -1,2 +1,2 @@\n int a;\n-int b;\n+long b;\n",
			after:  files{"lib/m.c": "int a;\nlong b;\n"},
		},
		{
			name:   "traditional diff, strip 0",
			before: files{"m.c": "a\n"},
			patch:  "--- m.c\n+++ m.c\n@@ -1 +1 @@\n-a\n+b\n",
			strip:  []int{0},
			after:  files{"m.c": "b\n"},
		},
		{
			name:   "git diff, strip 2",
			before: files{"x.txt": "a\n"},
			patch:  "diff --git a/project/x.txt b/project/x.txt\n--- a/project/x.txt\n+++ b/project/x.txt\n@@ -1 +1 @@\n-a\n+b\n",
			strip:  []int{2},
			after:  files{"x.txt": "b\n"},
		},
		{
			name:   "hunk found away from its header",
			before: files{"f.txt": "0\n1\n2\n3\nctx\nold\nctx2\n"},
			patch:  "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n ctx\n-old\n+new\n ctx2\n",
			after:  files{"f.txt": "0\n1\n2\n3\nctx\nnew\nctx2\n"},
		},
		{
			name:   "two hunks, the second offset by the first",
			before: files{"f.txt": "a\nb\nc\nd\ne\nf\ng\nh\n"},
			patch:  "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,4 @@\n a\n+a1\n+a2\n b\n@@ -7,2 +9,2 @@\n g\n-h\n+H\n",
			after:  files{"f.txt": "a\na1\na2\nb\nc\nd\ne\nf\ng\nH\n"},
		},
		{
			name:   "CRLF file, LF patch: the file keeps CRLF",
			before: files{"w.txt": "one\r\ntwo\r\nthree\r\n"},
			patch:  "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+2.5\n three\n",
			after:  files{"w.txt": "one\r\nTWO\r\n2.5\r\nthree\r\n"},
		},
		{
			name:   "CRLF file, CRLF hunk lines",
			before: files{"w.txt": "one\r\ntwo\r\n"},
			patch:  "--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n one\r\n-two\r\n+2\r\n",
			after:  files{"w.txt": "one\r\n2\r\n"},
		},
		{
			name:   "no newline at the end, kept and then fixed",
			before: files{"n.txt": "a\nb"},
			patch:  "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n",
			after:  files{"n.txt": "a\nb\nc\n"},
		},
		{
			name:   "two sections on one file",
			before: files{"f.txt": "a\nb\n"},
			patch:  "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/f.txt\n+++ b/f.txt\n@@ -2 +2 @@\n-b\n+B\n",
			after:  files{"f.txt": "A\nB\n"},
			text:   []string{"applied 2 hunks to 1 file"},
		},
		{
			name:   "delete then create beneath its name",
			before: files{"d": "file\n"},
			patch:  "--- a/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-file\n--- /dev/null\n+++ b/d/x.txt\n@@ -0,0 +1 @@\n+x\n",
			after:  files{"d/x.txt": "x\n"},
		},
		{
			name:   "email preamble is ignored",
			before: files{"a.txt": "1\n"},
			patch:  "From 123 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] change\n\n---\n a.txt | 2 +-\n\ndiff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-1\n+2\n-- \n2.39.0\n",
			after:  files{"a.txt": "2\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, ap := setup(t, tt.before)
			res := execute(t, ap, argsJSON(tt.patch, tt.strip...))
			if !res.Success {
				t.Fatalf("failed: %s", res.Error)
			}
			checkFiles(t, dir, tt.after)
			for _, w := range tt.text {
				if !strings.Contains(res.Output.Text, w) {
					t.Errorf("text does not contain %q:\n%s", w, res.Output.Text)
				}
			}
			if _, ok := res.Output.Data.(Data); !ok {
				t.Errorf("Data = %T", res.Output.Data)
			}
		})
	}
}

func TestModeChange(t *testing.T) {
	dir, ap := setup(t, files{"run.sh": "echo hi\n"})
	patch := "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-echo hi\n+echo hello\n" +
		"diff --git a/bin/tool b/bin/tool\nnew file mode 100755\n--- /dev/null\n+++ b/bin/tool\n@@ -0,0 +1 @@\n+#!/bin/sh\n"
	if res := execute(t, ap, argsJSON(patch)); !res.Success {
		t.Fatal(res.Error)
	}
	for _, name := range []string{"run.sh", "bin/tool"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: mode %v, %v; want 0755", name, fi.Mode(), err)
		}
	}
}

// TestRejectedPatchChangesNothing: the second file's hunk does not match,
// so no file changes, and the result shows the file, the hunk header and
// the differing lines.
func TestRejectedPatchChangesNothing(t *testing.T) {
	before := files{"a.txt": "one\ntwo\nthree\n", "b.txt": "alpha\nBETA\n", "old.txt": "gone\nsoon\n"}
	dir, ap := setup(t, before)
	res := execute(t, ap, argsJSON(multiPatch))
	if res.Success {
		t.Fatal("a patch with a rejected hunk succeeded")
	}
	for _, want := range []string{"nothing was changed", "b.txt: hunk 1 of 1 (@@ -1,2 +1,3 @@)", `line 2: expected "beta"`, `found    "BETA"`, "re-read the files"} {
		if !strings.Contains(res.Error, want) {
			t.Errorf("error does not contain %q:\n%s", want, res.Error)
		}
	}
	before["docs/new.md"] = gone
	checkFiles(t, dir, before)
	if _, err := os.Stat(filepath.Join(dir, "docs")); err == nil {
		t.Error("docs/ was created")
	}
}

func TestRejections(t *testing.T) {
	tests := []struct {
		name   string
		before files
		patch  string
		want   string
	}{
		{name: "create an existing file", before: files{"a": "x\n"},
			patch: "--- /dev/null\n+++ b/a\n@@ -0,0 +1 @@\n+y\n", want: "already exists"},
		{name: "delete a missing file",
			patch: "--- a/a\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n", want: "does not exist"},
		{name: "modify a missing file",
			patch: "--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n", want: "/dev/null as the old name"},
		{name: "delete leaves lines", before: files{"a": "x\ny\n"},
			patch: "diff --git a/a b/a\ndeleted file mode 100644\n--- a/a\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", want: "does not remove all"},
		{name: "binary", before: files{"a.bin": "x"},
			patch: "diff --git a/a.bin b/a.bin\nindex 1111111..2222222 100644\nBinary files a/a.bin and b/a.bin differ\n", want: "binary patches are not supported"},
		{name: "symbolic link mode",
			patch: "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n", want: "symbolic links"},
		{name: "rename onto an existing file", before: files{"a": "x\n", "b": "y\n"},
			patch: "diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\n", want: "already exists"},
		{name: "file in the way of a new directory", before: files{"d": "x\n"},
			patch: "--- /dev/null\n+++ b/d/e.txt\n@@ -0,0 +1 @@\n+y\n", want: "is not a directory"},
		{name: "a directory as a file", before: files{"d/x": "x\n"},
			patch: "--- a/d\n+++ b/d\n@@ -1 +1 @@\n-x\n+y\n", want: "is a directory"},
		{name: "context differs in the final newline", before: files{"n": "a"},
			patch: "--- a/n\n+++ b/n\n@@ -1 +1,2 @@\n a\n+b\n", want: "differs in the newline at the end of the file"},
		{name: "insertion after a line without newline", before: files{"n": "a"},
			patch: "--- a/n\n+++ b/n\n@@ -1,0 +2 @@\n+b\n", want: "no newline and run into the next line"},
		{name: "empty change", before: files{"a": "x\n"},
			patch: "diff --git a/a b/a\nindex 1111111..1111111 100644\n", want: "changes nothing"},
		{name: "insertion past the end", before: files{"a": "x\n"},
			patch: "--- a/a\n+++ b/a\n@@ -5,0 +6 @@\n+y\n", want: "inserts after line 5, but the file has 1 lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, ap := setup(t, tt.before)
			if _, err := ap.Assess(argsJSON(tt.patch)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Assess err = %v, want %q", err, tt.want)
			}
			res := execute(t, ap, argsJSON(tt.patch))
			if res.Success || !strings.Contains(res.Error, tt.want) {
				t.Fatalf("result = %+v, want a failure with %q", res, tt.want)
			}
			checkFiles(t, dir, tt.before)
		})
	}
}

func TestPathEscapes(t *testing.T) {
	parent := t.TempDir()
	outside := filepath.Join(parent, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "ws")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "secret-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.txt"), []byte("s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("in.txt", filepath.Join(dir, "in-link")); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	ap := New(root, Options{})
	tests := []struct {
		name  string
		patch string
		strip int
		want  string
	}{
		{name: "dot dot", patch: "--- a/../outside/secret.txt\n+++ b/../outside/secret.txt\n@@ -1 +1 @@\n-s\n+x\n", strip: 1, want: `".."`},
		{name: "dot dot in a new file", patch: "--- /dev/null\n+++ b/x/../../evil.txt\n@@ -0,0 +1 @@\n+x\n", strip: 1, want: `".."`},
		{name: "absolute", patch: "--- " + outside + "/secret.txt\n+++ " + outside + "/secret.txt\n@@ -1 +1 @@\n-s\n+x\n", strip: 0, want: "absolute"},
		{name: "git rename to absolute", patch: "diff --git a/in.txt b/in.txt\nsimilarity index 100%\nrename from in.txt\nrename to /tmp/evil.txt\n", strip: 1, want: "absolute"},
		{name: "symlinked directory", patch: "--- a/out/secret.txt\n+++ b/out/secret.txt\n@@ -1 +1 @@\n-s\n+x\n", strip: 1, want: "outside the workspace"},
		{name: "new file through a symlinked directory", patch: "--- /dev/null\n+++ b/out/new.txt\n@@ -0,0 +1 @@\n+x\n", strip: 1, want: "outside the workspace"},
		{name: "symlinked file", patch: "--- a/secret-link\n+++ b/secret-link\n@@ -1 +1 @@\n-s\n+x\n", strip: 1, want: "outside the workspace"},
		{name: ".git", patch: "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+x\n", strip: 1, want: "inside .git"},
		{name: ".GIT in a subdirectory", patch: "--- /dev/null\n+++ b/sub/.GIT/config\n@@ -0,0 +1 @@\n+x\n", strip: 1, want: "inside .git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as, err := ap.Assess(argsJSON(tt.patch, tt.strip))
			if err != nil {
				t.Fatalf("Assess: %v", err)
			}
			if !as.Denied || !strings.Contains(strings.Join(as.Reasons, " "), tt.want) {
				t.Fatalf("assessment = %+v, want denied with %q", as, tt.want)
			}
			res := execute(t, ap, argsJSON(tt.patch, tt.strip))
			if res.Success || !strings.Contains(res.Error, tt.want) {
				t.Fatalf("result = %+v", res)
			}
			if got, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(got) != "s\n" {
				t.Fatal("the file outside changed")
			}
			entries, _ := os.ReadDir(outside)
			entries2, _ := os.ReadDir(parent)
			if len(entries) != 1 || len(entries2) != 2 {
				t.Fatalf("something was created outside: %v %v", entries, entries2)
			}
		})
	}
	t.Run("a link inside is written through and kept", func(t *testing.T) {
		res := execute(t, ap, argsJSON("--- a/in-link\n+++ b/in-link\n@@ -1 +1 @@\n-s\n+t\n"))
		if !res.Success {
			t.Fatal(res.Error)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "in.txt")); string(got) != "t\n" {
			t.Fatalf("in.txt = %q", got)
		}
		if fi, err := os.Lstat(filepath.Join(dir, "in-link")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatal("the link was replaced")
		}
	})
	t.Run("a link is never deleted", func(t *testing.T) {
		res := execute(t, ap, argsJSON("diff --git a/in-link b/in-link\ndeleted file mode 100644\n--- a/in-link\n+++ /dev/null\n@@ -1 +0,0 @@\n-t\n"))
		if res.Success || !strings.Contains(res.Error, "symbolic link") {
			t.Fatalf("result = %+v", res)
		}
	})
}

// TestWriteFailureRollsBack makes the second write fail: the first file,
// the deletion and the new directory are all undone.
func TestWriteFailureRollsBack(t *testing.T) {
	for _, failAt := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("write %d fails", failAt), func(t *testing.T) {
			before := files{"a.txt": "one\ntwo\nthree\n", "b.txt": "alpha\nbeta\n", "old.txt": "gone\nsoon\n"}
			dir, ap := setup(t, before)
			if err := os.Chmod(filepath.Join(dir, "a.txt"), 0o600); err != nil {
				t.Fatal(err)
			}
			writes := 0
			real := ap.fs.write
			ap.fs.write = func(path string, data []byte, perm fs.FileMode) error {
				writes++
				if writes == failAt {
					return &fs.PathError{Op: "write", Path: path, Err: errors.New("injected failure")}
				}
				return real(path, data, perm)
			}
			res := execute(t, ap, argsJSON(multiPatch))
			if res.Success || !strings.Contains(res.Error, "injected failure") || !strings.Contains(res.Error, "the workspace is as it was") {
				t.Fatalf("result = %+v", res)
			}
			before["docs/new.md"] = gone
			checkFiles(t, dir, before)
			if _, err := os.Stat(filepath.Join(dir, "docs")); err == nil {
				t.Error("docs/ is still there")
			}
			if fi, _ := os.Stat(filepath.Join(dir, "a.txt")); fi.Mode().Perm() != 0o600 {
				t.Errorf("a.txt mode = %v", fi.Mode())
			}
		})
	}
	t.Run("removal fails", func(t *testing.T) {
		before := files{"a.txt": "one\ntwo\nthree\n", "b.txt": "alpha\nbeta\n", "old.txt": "gone\nsoon\n"}
		dir, ap := setup(t, before)
		ap.fs.remove = func(path string) error { return errors.New("injected removal failure") }
		res := execute(t, ap, argsJSON(multiPatch))
		if res.Success || !strings.Contains(res.Error, "injected removal failure") {
			t.Fatalf("result = %+v", res)
		}
		checkFiles(t, dir, before)
	})
	t.Run("undo fails too", func(t *testing.T) {
		before := files{"a.txt": "one\ntwo\nthree\n", "b.txt": "alpha\nbeta\n", "old.txt": "gone\nsoon\n"}
		_, ap := setup(t, before)
		writes := 0
		real := ap.fs.write
		ap.fs.write = func(path string, data []byte, perm fs.FileMode) error {
			writes++
			if writes >= 2 {
				return errors.New("disk gone")
			}
			return real(path, data, perm)
		}
		res := execute(t, ap, argsJSON(multiPatch))
		if res.Success || !strings.Contains(res.Error, "partly patched") || !strings.Contains(res.Error, "old.txt") {
			t.Fatalf("result = %+v", res)
		}
	})
}

func TestAssess(t *testing.T) {
	dir, ap := setup(t, files{"a.txt": "one\ntwo\nthree\n", "b.txt": "alpha\nbeta\n", "old.txt": "gone\nsoon\n"})
	raw := argsJSON(multiPatch)
	as, err := ap.Assess(raw)
	if err != nil {
		t.Fatal(err)
	}
	if as.Tier != tool.Medium || as.Denied {
		t.Fatalf("assessment = %+v", as)
	}
	want := []string{filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"), filepath.Join(dir, "docs", "new.md"), filepath.Join(dir, "old.txt")}
	real := make([]string, len(want))
	for i, w := range want {
		real[i] = w
		if r, err := filepath.EvalSymlinks(filepath.Dir(w)); err == nil {
			real[i] = filepath.Join(r, filepath.Base(w))
		}
	}
	if !slices.Equal(as.Paths, real) {
		t.Errorf("Paths = %v, want %v", as.Paths, real)
	}
	wantSummary := fmt.Sprintf("modify 2 files, create 1, delete 1: M a.txt, M b.txt, A docs/new.md, D old.txt (patch %s, strip 1)", patchID(args{patch: multiPatch}))
	if as.Plan == nil || as.Plan.Summary != wantSummary {
		t.Errorf("summary = %q\nwant      %q", as.Plan.Summary, wantSummary)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs")); err == nil {
		t.Error("Assess wrote to the disk")
	}
}

func TestPlanMismatchRefused(t *testing.T) {
	before := files{"a.txt": "one\ntwo\nthree\n", "b.txt": "alpha\nbeta\n", "old.txt": "gone\nsoon\n"}
	dir, ap := setup(t, before)
	other := "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n"
	as, err := ap.Assess(argsJSON(other))
	if err != nil {
		t.Fatal(err)
	}
	ctx := tool.WithApprovedPlan(context.Background(), as.Plan)
	res, err := ap.Execute(ctx, argsJSON(multiPatch))
	if err != nil {
		t.Fatal(err)
	}
	if res.Success || !strings.Contains(res.Error, "approved plan") {
		t.Fatalf("result = %+v", res)
	}
	before["docs/new.md"] = gone
	checkFiles(t, dir, before)
	if res, _ := ap.Execute(ctx, argsJSON(other)); !res.Success {
		t.Fatalf("the approved patch failed: %s", res.Error)
	}
}

func TestInvalidArguments(t *testing.T) {
	_, ap := setup(t, files{"a": "x\n"})
	tests := []struct {
		name string
		raw  string
		want error
		text string
	}{
		{name: "no patch", raw: `{}`, want: ErrInvalidArguments, text: "patch is required"},
		{name: "blank patch", raw: `{"patch":"  "}`, want: ErrInvalidArguments, text: "patch is required"},
		{name: "unknown field", raw: `{"patch":"x","p":1}`, want: ErrInvalidArguments, text: "unknown field"},
		{name: "negative strip", raw: `{"patch":"x","strip":-1}`, want: ErrInvalidArguments, text: "out of range"},
		{name: "huge strip", raw: `{"patch":"x","strip":99}`, want: ErrInvalidArguments, text: "out of range"},
		{name: "too big", raw: `{"patch":"` + strings.Repeat("x", MaxPatchBytes+1) + `"}`, want: ErrInvalidArguments, text: "the limit is"},
		{name: "no files", raw: `{"patch":"just some text\n"}`, want: ErrMalformed, text: "no file changes"},
		{name: "fragment without a file", raw: `{"patch":"@@ -1 +1 @@\n-a\n+b\n"}`, want: ErrMalformed, text: "line 1"},
		{name: "miscounted hunk in the second section", raw: `{"patch":"diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\ndiff --git a/b b/b\n--- a/b\n+++ b/b\n@@ -1,3 +1,3 @@\n-x\n+y\n"}`, want: ErrMalformed, text: "line 11: fragment header miscounts"},
		{name: "strip 0 with git", raw: `{"patch":"diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n","strip":0}`, want: ErrInvalidArguments, text: "strip 0"},
		{name: "strip removes the name", raw: `{"patch":"--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n","strip":1}`, want: ErrInvalidArguments, text: "removes the whole name"},
		{name: "CRLF headers", raw: `{"patch":"--- a/a\r\n+++ b/a\r\n@@ -1 +1 @@\r\n-x\r\n+y\r\n"}`, want: ErrMalformed, text: "CRLF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ap.Assess(json.RawMessage(tt.raw))
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err = %v, want %v with %q", err, tt.want, tt.text)
			}
			res := execute(t, ap, json.RawMessage(tt.raw))
			if res.Success || !strings.Contains(res.Error, tt.text) {
				t.Fatalf("result = %+v", res)
			}
		})
	}
}

func TestApplyTextTable(t *testing.T) {
	tests := []struct {
		name    string
		content string
		patch   string
		want    string
		reject  string
	}{
		{name: "nearest of two matches", content: "x\na\nx\nb\nx\na\nx\n", patch: "@@ -5,3 +5,3 @@\n x\n-a\n+A\n x\n", want: "x\na\nx\nb\nx\nA\nx\n"},
		{name: "overlap", content: "a\nb\n", patch: "@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -1,2 +1,2 @@\n a\n-b\n+C\n", reject: "overlap"},
		{name: "file ends early", content: "a\n", patch: "@@ -1,2 +1,2 @@\n a\n-b\n+B\n", reject: "ends before it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secs, err := parse("--- a/f\n+++ b/f\n" + tt.patch)
			if err != nil || len(secs) != 1 {
				t.Fatalf("parse: %v", err)
			}
			got, rej := applyText("f", []byte(tt.content), secs[0].file.TextFragments)
			if tt.reject != "" {
				if len(rej) == 0 || !strings.Contains(rej[0].String(), tt.reject) {
					t.Fatalf("rejects = %v, want %q", rej, tt.reject)
				}
				return
			}
			if rej != nil || string(got) != tt.want {
				t.Fatalf("got %q %v, want %q", got, rej, tt.want)
			}
		})
	}
}

func BenchmarkDryRun(b *testing.B) {
	fs := files{}
	var p strings.Builder
	for i := range 20 {
		name := fmt.Sprintf("pkg%d/file.go", i)
		var content strings.Builder
		for j := range 400 {
			fmt.Fprintf(&content, "line %d of file %d\n", j, i)
		}
		fs[name] = content.String()
		fmt.Fprintf(&p, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -200,3 +200,3 @@\n line 199 of file %d\n-line 200 of file %d\n+changed\n line 201 of file %d\n", name, name, name, name, i, i, i)
	}
	_, ap := setup(b, fs)
	ar := args{patch: p.String(), strip: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ap.dryRun(ar); err != nil {
			b.Fatal(err)
		}
	}
}
