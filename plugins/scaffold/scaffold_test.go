package scaffold_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/plugins/scaffold"
)

func TestWriteRefuses(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dir  string
		opts scaffold.Options
		want error
	}{
		{name: "non-empty directory", dir: full, opts: scaffold.Options{Name: "hello"}, want: scaffold.ErrExists},
		{name: "upper case", dir: t.TempDir(), opts: scaffold.Options{Name: "Hello"}, want: scaffold.ErrName},
		{name: "path", dir: t.TempDir(), opts: scaffold.Options{Name: "../hello"}, want: scaffold.ErrName},
		{name: "empty", dir: t.TempDir(), opts: scaffold.Options{}, want: scaffold.ErrName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scaffold.Write(tt.dir, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(full, "keep.txt")); string(b) != "mine" {
		t.Fatal("a refused scaffold touched the directory")
	}
}

func TestWriteFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-tool")
	files, err := scaffold.Write(dir, scaffold.Options{Name: "my-tool", TalonVersion: "v1.4.0"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "Makefile", "README.md", "go.mod", "greet.go", "greet_test.go",
		"locales/en/my-tool.ftl", "locales/ja/my-tool.ftl", "main.go", "plugin.toml"}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", files, want)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if gomod := read("go.mod"); !strings.Contains(gomod, "module example.com/my-tool") || !strings.Contains(gomod, "require github.com/talonhq/talon v1.4.0") {
		t.Errorf("go.mod:\n%s", gomod)
	}
	// The manifest parses as written, and the tool's description ids
	// match the registered name.
	m, err := manifest.Parse([]byte(read("plugin.toml")))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "my-tool" || m.Entry != "my-tool.wasm" || m.Kind != manifest.KindWASM {
		t.Errorf("manifest %+v", m)
	}
	for _, f := range []string{"locales/en/my-tool.ftl", "locales/ja/my-tool.ftl"} {
		if !strings.Contains(read(f), "tool-my-tool-greet = ") || !strings.Contains(read(f), "tool-my-tool-greet-param-name = ") {
			t.Errorf("%s lacks the tool's ids:\n%s", f, read(f))
		}
	}
	if !strings.Contains(read("main.go"), `Name:        "my_tool_greet"`) {
		t.Errorf("main.go does not register my_tool_greet")
	}
	if !strings.Contains(read("Makefile"), "\tGOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared") {
		t.Errorf("the Makefile's recipes must start with a tab")
	}
}

// TestScaffoldBuilds builds a fresh scaffold the way an author would, with
// the standard toolchain only, against this repository's plugins/pdk:
// go test runs the handler natively, and the WASM build produces a module.
func TestScaffoldBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a WASM module")
	}
	dir := filepath.Join(t.TempDir(), "hello")
	if _, err := scaffold.Write(dir, scaffold.Options{Name: "hello"}); err != nil {
		t.Fatal(err)
	}
	root := pluginbuild.Root()
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gomod = append(gomod, []byte("\nrequire "+scaffold.Module+" v0.0.0\n\nreplace "+scaffold.Module+" => "+root+"\n")...)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), gomod, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(env []string, args ...string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append([]string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local"}, env...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out.String())
		}
	}
	run(nil, "test", "-count=1", "./...")
	run([]string{"GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0"}, "build", "-buildmode=c-shared", "-trimpath", "-o", "hello.wasm", ".")
	b, err := os.ReadFile(filepath.Join(dir, "hello.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\x00asm")) {
		t.Fatal("hello.wasm is not a WebAssembly module")
	}
}
