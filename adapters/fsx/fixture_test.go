package fsx_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/tool"
	"github.com/talonhq/talon/workspace"
)

// fixture is a workspace with neighbours to escape to:
//
//	base/
//	  ws/
//	    README.md
//	    bin.dat                 NUL bytes and a TODO
//	    docs/guide.md
//	    src/main.go
//	    src/util/strings.go
//	    .git/config             holds a TODO that searches must not see
//	    alias.go     -> src/main.go            (file link inside)
//	    leak.go      -> ../outside/secret.go   (file link outside)
//	    link-in-dir  -> src                    (dir link inside)
//	    link-out-dir -> ../outside             (dir link outside)
//	    link-out-file -> ../outside/secret.txt
//	    dangling     -> nowhere
//	  outside/secret.txt, outside/secret.go
type fixture struct {
	base, ws, outside string
	root              *workspace.Root
}

var fixtureFiles = map[string]string{
	"README.md":           "hello\nworld\n",
	"bin.dat":             "\x00\x01TODO\x02",
	"docs/guide.md":       "# Guide\nTODO write\n",
	"src/main.go":         "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",
	"src/util/strings.go": "package util\n\n// TODO: more helpers\n",
	".git/config":         "[core]\nTODO secret in git\n",
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{base: base, ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	for name, content := range fixtureFiles {
		f.write(t, name, content)
	}
	mustWrite(t, filepath.Join(f.outside, "secret.txt"), "TODO secret outside\n")
	mustWrite(t, filepath.Join(f.outside, "secret.go"), "package secret // TODO outside\n")
	for link, target := range map[string]string{
		"alias.go":      "src/main.go",
		"leak.go":       "../outside/secret.go",
		"link-in-dir":   "src",
		"link-out-dir":  "../outside",
		"link-out-file": "../outside/secret.txt",
		"dangling":      "nowhere",
	} {
		if err := os.Symlink(target, filepath.Join(f.ws, link)); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	f.root, err = workspace.New(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) path(name string) string { return filepath.Join(f.ws, filepath.FromSlash(name)) }

func (f *fixture) write(t testing.TB, name, content string) {
	t.Helper()
	mustWrite(t, f.path(name), content)
}

func (f *fixture) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(f.path(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (f *fixture) secretsIntact(t testing.TB) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.outside, "secret.txt"))
	if err != nil || string(b) != "TODO secret outside\n" {
		t.Errorf("outside/secret.txt changed: %q, %v", b, err)
	}
	entries, err := os.ReadDir(f.outside)
	if err != nil || len(entries) != 2 {
		t.Errorf("outside/ now holds %d entries (%v), want 2", len(entries), err)
	}
}

func mustWrite(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// call runs a tool and fails the test on a Go error.
func call(t *testing.T, tl tool.Tool, args string) tool.Result {
	t.Helper()
	res, err := tl.Execute(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: Go error: %v", tl.Spec().Name, args, err)
	}
	return res
}

// expect checks a result against either wantText (exact, for successes)
// or wantErr (a substring of the failure text).
func expect(t *testing.T, res tool.Result, wantText, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if res.Success {
			t.Fatalf("succeeded with %q, want a failure containing %q", res.Output.Text, wantErr)
		}
		if !strings.Contains(res.Error, wantErr) {
			t.Fatalf("error = %q\nwant it to contain %q", res.Error, wantErr)
		}
		return
	}
	if !res.Success {
		t.Fatalf("failed: %s", res.Error)
	}
	if res.Output.Text != wantText {
		t.Fatalf("text = %q\nwant   %q", res.Output.Text, wantText)
	}
}

func argsJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
