// Package pluginbuild builds plugin fixtures from source for tests and
// benchmarks: Go WASM plugins with the standard toolchain, WAT modules with
// wabt's wat2wasm, and Go subprocess plugin binaries. Outputs are cached per
// process by source directory, so many tests share one build.
package pluginbuild

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	built = map[string]*result{}
	dir   string
)

type result struct {
	once sync.Once
	path string
	err  error
}

// outDir is one temporary directory per test process, removed by [Cleanup].
func outDir() (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if dir == "" {
		d, err := os.MkdirTemp("", "talon-pluginbuild-")
		if err != nil {
			return "", err
		}
		dir = d
	}
	return dir, nil
}

// Cleanup removes every output; call it from TestMain after m.Run.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		_ = os.RemoveAll(dir)
		dir = ""
		built = map[string]*result{}
	}
}

func once(key string, build func(out string) error, name string) (string, error) {
	mu.Lock()
	r := built[key]
	if r == nil {
		r = &result{}
		built[key] = r
	}
	mu.Unlock()
	r.once.Do(func() {
		d, err := outDir()
		if err != nil {
			r.err = err
			return
		}
		out := filepath.Join(d, fmt.Sprintf("%d-%s", len(key), name))
		if err := os.MkdirAll(out, 0o755); err != nil {
			r.err = err
			return
		}
		out = filepath.Join(out, name)
		r.err = build(out)
		r.path = out
	})
	return r.path, r.err
}

// Root returns the repository root (the directory holding go.mod).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

func run(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %v in %s: %w\n%s", name, args, dir, err, out.String())
	}
	return nil
}

// GoWASM builds the Go plugin in pkgDir (a directory of the main module, or
// of its own module) as a wasip1 reactor and returns the .wasm path.
func GoWASM(tb testing.TB, pkgDir string) string {
	tb.Helper()
	abs, err := filepath.Abs(pkgDir)
	if err != nil {
		tb.Fatal(err)
	}
	path, err := once("wasm:"+abs, func(out string) error {
		return run(abs, []string{"GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0"},
			"go", "build", "-buildmode=c-shared", "-trimpath", "-o", out, ".")
	}, filepath.Base(abs)+".wasm")
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// WAT assembles a WebAssembly text file with wat2wasm (Debian package
// wabt) and returns the .wasm path.
func WAT(tb testing.TB, watFile string) string {
	tb.Helper()
	abs, err := filepath.Abs(watFile)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		tb.Fatal("wat2wasm is not installed: install Debian's wabt package (apt-get install wabt); make test does this when it can")
	}
	path, err := once("wat:"+abs, func(out string) error {
		return run(filepath.Dir(abs), nil, "wat2wasm", "-o", out, abs)
	}, filepath.Base(abs)+".wasm")
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// Binary builds the Go command in pkgDir for this machine and returns its
// path (a subprocess plugin, a fake vendor CLI).
func Binary(tb testing.TB, pkgDir string) string {
	tb.Helper()
	abs, err := filepath.Abs(pkgDir)
	if err != nil {
		tb.Fatal(err)
	}
	name := filepath.Base(abs)
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	path, err := once("bin:"+abs, func(out string) error {
		return run(abs, nil, "go", "build", "-trimpath", "-o", out, ".")
	}, name)
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// npmUnreachable are npm's words for a registry it cannot reach.
var npmUnreachable = []string{"ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH"}

// skipIfOffline skips tb when err says the npm registry is unreachable;
// any other failure fails it.
func skipIfOffline(tb testing.TB, err error) {
	tb.Helper()
	for _, w := range npmUnreachable {
		if bytes.Contains([]byte(err.Error()), []byte(w)) {
			tb.Skipf("the npm registry is unreachable, so the npm packages cannot be installed: %v", err)
		}
	}
	tb.Fatal(err)
}

// AssemblyScript compiles the AssemblyScript plugin in dir with
// scripts/assemblyscript.sh (the npm packages its package-lock.json pins,
// installed once per machine) and returns the .wasm path. It skips tb only
// when the npm registry cannot be reached.
func AssemblyScript(tb testing.TB, dir string) string {
	tb.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		tb.Fatal(err)
	}
	path, err := once("as:"+abs, func(out string) error {
		return run(abs, nil, filepath.Join(Root(), "scripts", "assemblyscript.sh"), abs, out)
	}, filepath.Base(abs)+".wasm")
	if err != nil {
		skipIfOffline(tb, err)
	}
	return path
}

// NodeModules installs the npm packages dir/package-lock.json pins with
// scripts/npm-modules.sh and returns their node_modules directory. It
// skips tb only when the npm registry cannot be reached.
func NodeModules(tb testing.TB, dir string) string {
	tb.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(Root(), "scripts", "npm-modules.sh"), abs)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		skipIfOffline(tb, fmt.Errorf("npm-modules.sh %s: %w\n%s", abs, err, stderr.String()))
	}
	return string(bytes.TrimSpace(out))
}
