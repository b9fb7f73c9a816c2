package scaffold_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/plugins/scaffold"
)

var update = flag.Bool("update", false, "copy plugins/pdk, plugins/sdk and plugins/proto into _kits")

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
		{name: "extism", dir: t.TempDir(), opts: scaffold.Options{Name: "hello", Kind: manifest.KindExtism}, want: scaffold.ErrKind},
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
	tests := []struct {
		name    string
		opts    scaffold.Options
		files   []string
		gomod   []string // lines go.mod holds
		entry   string
		kind    manifest.Kind
		install string // a line of the Makefile
	}{
		{
			name: "wasm, development build",
			opts: scaffold.Options{Name: "my-tool"},
			files: []string{".gitignore", "Makefile", "README.md", "go.mod", "greet.go", "greet_test.go",
				"locales/en/my-tool.ftl", "locales/ja/my-tool.ftl", "main.go", "plugin.toml",
				"talon/pdk/abi_other.go", "talon/pdk/abi_wasip1.go", "talon/pdk/doc.go", "talon/pdk/go.mod", "talon/pdk/host.go", "talon/pdk/pdk.go"},
			gomod: []string{"module example.com/my-tool", "require github.com/talonhq/talon/plugins/pdk v0.0.0-00010101000000-000000000000",
				"\tgithub.com/talonhq/talon/plugins/pdk => ./talon/pdk"},
			entry: "my-tool.wasm", kind: manifest.KindWASM,
			install: "\tGOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -o my-tool.wasm .",
		},
		{
			name:  "wasm, release",
			opts:  scaffold.Options{Name: "my-tool", TalonVersion: "v1.4.0", Module: "example.org/x"},
			gomod: []string{"module example.org/x", "require github.com/talonhq/talon/plugins/pdk v1.4.0", "\tgithub.com/talonhq/talon/plugins/pdk v1.4.0 => ./talon/pdk"},
			entry: "my-tool.wasm", kind: manifest.KindWASM,
		},
		{
			name: "process, development build",
			opts: scaffold.Options{Name: "my-tool", Kind: manifest.KindProcess},
			files: []string{".gitignore", "Makefile", "README.md", "go.mod", "go.sum", "greet.go", "greet_test.go",
				"locales/en/my-tool.ftl", "locales/ja/my-tool.ftl", "main.go", "plugin.toml",
				"talon/proto/doc.go", "talon/proto/go.mod", "talon/proto/go.sum", "talon/proto/handshake.go", "talon/proto/plugin.pb.go", "talon/proto/plugin_grpc.pb.go",
				"talon/sdk/doc.go", "talon/sdk/go.mod", "talon/sdk/go.sum", "talon/sdk/sdk.go"},
			gomod: []string{"require github.com/talonhq/talon/plugins/sdk v0.0.0-00010101000000-000000000000",
				"\tgithub.com/talonhq/talon/plugins/proto v0.0.0-00010101000000-000000000000 // indirect",
				"\tgithub.com/hashicorp/go-plugin v1.8.0 // indirect",
				"\tgithub.com/talonhq/talon/plugins/sdk => ./talon/sdk", "\tgithub.com/talonhq/talon/plugins/proto => ./talon/proto"},
			entry: "my-tool", kind: manifest.KindProcess, install: "\tgo build -trimpath -o my-tool .",
		},
		{
			name:  "process, release",
			opts:  scaffold.Options{Name: "my-tool", Kind: manifest.KindProcess, TalonVersion: "v1.4.0"},
			gomod: []string{"require github.com/talonhq/talon/plugins/sdk v1.4.0", "\tgithub.com/talonhq/talon/plugins/sdk v1.4.0 => ./talon/sdk", "\tgithub.com/talonhq/talon/plugins/proto v1.4.0 => ./talon/proto"},
			entry: "my-tool", kind: manifest.KindProcess,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "my-tool")
			files, err := scaffold.Write(dir, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if tt.files != nil && !slices.Equal(files, tt.files) {
				t.Fatalf("files %v, want %v", files, tt.files)
			}
			read := func(name string) string {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			gomod := read("go.mod")
			for _, line := range tt.gomod {
				if !slices.Contains(strings.Split(gomod, "\n"), line) {
					t.Errorf("go.mod lacks %q:\n%s", line, gomod)
				}
			}
			if strings.Contains(gomod, "goleak") {
				t.Errorf("go.mod requires the SDK's test dependency:\n%s", gomod)
			}
			// The manifest parses as written, and the tool's description
			// ids match the registered name.
			m, err := manifest.Parse([]byte(read("plugin.toml")))
			if err != nil {
				t.Fatal(err)
			}
			if m.Name != "my-tool" || m.Entry != tt.entry || m.Kind != tt.kind {
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
			if tt.install != "" && !strings.Contains(read("Makefile"), tt.install+"\n") {
				t.Errorf("the Makefile lacks %q (recipes start with a tab)", tt.install)
			}
		})
	}
}

// TestScaffoldBuilds builds fresh scaffolds of both kinds the way an
// author would, with the standard toolchain only and no network
// (GOFLAGS=-mod=mod GOPROXY=off): go test runs the handler natively, and
// the build produces a WASM module or a program. A subprocess plugin's
// dependencies (go-plugin, gRPC) come from the module cache, which holds
// them wherever talon itself was built.
func TestScaffoldBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugins")
	}
	tests := []struct {
		kind  manifest.Kind
		env   []string
		build []string
		out   string
		magic []byte
	}{
		{kind: manifest.KindWASM, env: []string{"GOOS=wasip1", "GOARCH=wasm"},
			build: []string{"build", "-buildmode=c-shared", "-trimpath", "-o", "hello.wasm", "."}, out: "hello.wasm", magic: []byte("\x00asm")},
		{kind: manifest.KindProcess, build: []string{"build", "-trimpath", "-o", "hello", "."}, out: "hello"},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "hello")
			if _, err := scaffold.Write(dir, scaffold.Options{Name: "hello", Kind: tt.kind}); err != nil {
				t.Fatal(err)
			}
			run := func(env []string, args ...string) {
				t.Helper()
				cmd := exec.Command("go", args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), append([]string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0"}, env...)...)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Run(); err != nil {
					t.Fatalf("go %v: %v\n%s", args, err, out.String())
				}
			}
			run(nil, "test", "-count=1", "./...")
			run(tt.env, tt.build...)
			b, err := os.ReadFile(filepath.Join(dir, tt.out))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, tt.magic) || len(b) == 0 {
				t.Fatalf("%s is not what the build should make", tt.out)
			}
		})
	}
}

// TestKitsMatchSources: the kits a scaffold writes are the modules in this
// tree, file for file. -update copies them.
func TestKitsMatchSources(t *testing.T) {
	root := pluginbuild.Root()
	for _, kit := range []string{"pdk", "sdk", "proto"} {
		src := filepath.Join(root, "plugins", kit)
		dst := filepath.Join("_kits", kit)
		want := map[string][]byte{}
		ents, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			name := e.Name()
			switch {
			case e.IsDir(), strings.HasSuffix(name, "_test.go"):
				continue
			case name == "go.mod", name == "go.sum":
				name += ".txt"
			case !strings.HasSuffix(name, ".go"):
				continue
			}
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			want[name] = b
		}
		if *update {
			if err := os.RemoveAll(dst); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(dst, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, b := range want {
				if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		got := map[string][]byte{}
		ents, err = os.ReadDir(dst)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dst, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			got[e.Name()] = b
		}
		for name, b := range want {
			if !bytes.Equal(got[name], b) {
				t.Errorf("_kits/%s/%s differs from plugins/%s: run go test ./plugins/scaffold -run TestKitsMatchSources -update", kit, name, kit)
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				t.Errorf("_kits/%s/%s is not in plugins/%s: run go test ./plugins/scaffold -run TestKitsMatchSources -update", kit, name, kit)
			}
		}
	}
}

// TestKitsRequireTalonVersions: every module a kit requires that talon
// requires too is at talon's version, so that a scaffold builds offline
// from the module cache that built talon; with gRPC 1.65 in the kits and
// 1.72 in talon, a fresh machine had no 1.65 to build a process plugin.
func TestKitsRequireTalonVersions(t *testing.T) {
	root := pluginbuild.Root()
	talon := requires(t, filepath.Join(root, "go.mod"))
	for _, kit := range []string{"pdk", "sdk", "proto"} {
		for mod, v := range requires(t, filepath.Join(root, "plugins", kit, "go.mod")) {
			if tv, ok := talon[mod]; ok && tv != v {
				t.Errorf("plugins/%s/go.mod requires %s %s, talon %s: require talon's version and run go test ./plugins/scaffold -run TestKitsMatchSources -update", kit, mod, v, tv)
			}
		}
	}
}

// requires reads the module requirements of a go.mod file.
func requires(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	block := false
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "require" && f[1] == "(":
			block = true
		case block && len(f) == 1 && f[0] == ")":
			block = false
		case block && len(f) == 2:
			out[f[0]] = f[1]
		case len(f) == 3 && f[0] == "require":
			out[f[1]] = f[2]
		}
	}
	if len(out) == 0 && strings.Contains(string(b), "require") {
		t.Fatalf("%s: no requirement read", file)
	}
	return out
}
