package main

import (
	"archive/tar"
	"compress/gzip"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/talonhq/talon/cli"
	"github.com/talonhq/talon/internal/pluginbuild"
)

// helloWASM is the example Go plugin built from source for the plugins_*
// scripts; "" under -short, where those scripts skip ([plugins]).
// wasmCache is a compilation cache the scripts share, so a module is
// compiled once per test run rather than once per script (compiling is
// what costs, above all under the race detector).
var helloWASM, wasmCache string

// buildPluginFixtures builds the example plugin from source.
func buildPluginFixtures(t *testing.T) {
	if testing.Short() {
		return
	}
	wasmCache = filepath.Join(t.TempDir(), "wasm-cache")
	if err := os.Mkdir(wasmCache, 0o755); err != nil {
		t.Fatal(err)
	}
	out := pluginbuild.GoWASM(t, filepath.Join(repoRoot(t), "plugins", "examples", "hello-go"))
	helloWASM = out
	warmWASMCache(t)
}

// warmWASMCache compiles the hello module into the shared cache once, by
// inspecting a copy of the plugin, before the scripts run in parallel and
// would each compile it.
func warmWASMCache(t *testing.T) {
	dir := t.TempDir()
	plugin := filepath.Join(dir, "hello")
	data := filepath.Join(dir, "data")
	src := filepath.Join(repoRoot(t), "plugins", "examples", "hello-go")
	for _, d := range []string{plugin, filepath.Join(data, "cache")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(wasmCache, filepath.Join(data, "cache", "wasm")); err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{filepath.Join(src, "plugin.toml"): "plugin.toml", helloWASM: "hello.wasm"} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(plugin, to), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"plugins", "sign", plugin}, {"plugins", "inspect", plugin, "--data-dir", data}} {
		var out strings.Builder
		code := cli.Main(args, cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out, Cwd: dir,
			Getenv: func(k string) string {
				if k == "HOME" {
					return dir
				}
				return ""
			}})
		if code != 0 {
			t.Fatalf("talon %v: exit %d\n%s", args, code, out.String())
		}
	}
}

// repoRoot is the module root, two levels above this package.
func repoRoot(t testing.TB) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// pluginEnv gives scripts the plugin fixtures and what `go build` needs to
// build a scaffold against this repository without the network:
// HELLO_SRC (the example's directory), HELLO_WASM (its module), TALON_ROOT,
// and the Go caches of the real environment.
func pluginEnv(env *testscript.Env) {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	env.Setenv("TALON_ROOT", root)
	env.Setenv("HELLO_SRC", filepath.Join(root, "plugins", "examples", "hello-go"))
	env.Setenv("HELLO_WASM", helloWASM)
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		v := os.Getenv(k)
		if v == "" {
			if out, err := exec.Command("go", "env", k).Output(); err == nil {
				v = strings.TrimSpace(string(out))
			}
		}
		env.Setenv(k, v)
	}
	env.Setenv("GOFLAGS", "-mod=mod")
	env.Setenv("GOPROXY", "off")
	env.Setenv("GOTOOLCHAIN", "local")
	env.Setenv("GOWORK", "off")
	env.Setenv("CGO_ENABLED", "0")
	if wasmCache != "" {
		// <data dir>/cache/wasm, the WASM host's compilation cache, is the
		// shared one. wazero writes cache entries by rename, so scripts
		// running in parallel do not see half-written entries.
		cache := filepath.Join(env.WorkDir, ".data", "talon", "cache")
		if err := os.MkdirAll(cache, 0o755); err == nil {
			_ = os.Symlink(wasmCache, filepath.Join(cache, "wasm"))
		}
	}
}

// mkTar archives a directory as OUT.tar.gz with every member under
// PREFIX/: mktar OUT DIR PREFIX.
func mkTar(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: mktar OUT DIR PREFIX")
	}
	f, err := os.Create(ts.MkAbs(args[0]))
	ts.Check(err)
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	src := ts.MkAbs(args[1])
	ts.Check(filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		name := filepath.ToSlash(filepath.Join(args[2], rel))
		if d.IsDir() {
			return tw.WriteHeader(&tar.Header{Name: name + "/", Typeflag: tar.TypeDir, Mode: 0o755})
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data))}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	}))
	ts.Check(tw.Close())
	ts.Check(zw.Close())
	ts.Check(f.Close())
}

// evilTar writes a hostile plugin archive: evil-tar OUT KIND, KIND one of
// traversal, absolute, symlink, hardlink, big (one member over 64 MiB, as
// zeros that compress to almost nothing).
func evilTar(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: evil-tar OUT traversal|absolute|symlink|hardlink|big")
	}
	f, err := os.Create(ts.MkAbs(args[0]))
	ts.Check(err)
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	file := func(name string, size int64) {
		ts.Check(tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: size}))
		zero := make([]byte, 1<<20)
		for left := size; left > 0; {
			n := min(left, int64(len(zero)))
			_, err := tw.Write(zero[:n])
			ts.Check(err)
			left -= n
		}
	}
	file("evil/plugin.toml", 0)
	switch args[1] {
	case "traversal":
		file("evil/../../escaped.txt", 1)
	case "absolute":
		file("/tmp/talon-escaped.txt", 1)
	case "symlink":
		ts.Check(tw.WriteHeader(&tar.Header{Name: "evil/locales", Typeflag: tar.TypeSymlink, Linkname: "/etc"}))
	case "hardlink":
		ts.Check(tw.WriteHeader(&tar.Header{Name: "evil/evil.wasm", Typeflag: tar.TypeLink, Linkname: "../../../etc/passwd"}))
	case "big":
		file("evil/evil.wasm", 64<<20+1)
	default:
		ts.Fatalf("unknown kind %q", args[1])
	}
	ts.Check(tw.Close())
	ts.Check(zw.Close())
	ts.Check(f.Close())
}

// wasmAppend appends a custom section to a WebAssembly module: the module
// stays valid and behaves the same, but its bytes (and sha256) change.
func wasmAppend(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: wasm-append FILE")
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	name := "talon-test"
	payload := "changed"
	body := append([]byte{byte(len(name))}, name...)
	body = append(body, payload...)
	data = append(data, 0x00, byte(len(body)))
	data = append(data, body...)
	ts.Check(os.WriteFile(path, data, 0o644))
}
