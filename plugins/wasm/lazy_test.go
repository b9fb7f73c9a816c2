package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
)

// fileSum is the sha256 of a file, as plugin.toml gives it.
func fileSum(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// copyModule copies a module into a directory of its own, to change it.
func copyModule(t testing.TB, from string) string {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(t.TempDir(), "plugin.wasm")
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return to
}

// TestLoadIsLazy: a load whose describe cache is warm compiles nothing and
// starts no instance; the plugin's first call compiles the module
// (through the compilation cache) and starts one. The load that has to
// describe the module closes the instance it described with: a pool
// starts empty.
func TestLoadIsLazy(t *testing.T) {
	wasm := pluginbuild.WAT(t, "../examples/wat-echo/echo.wat")
	f := fixture{name: "wat-echo", wasm: wasm, dataDir: t.TempDir(), hash: strings.Repeat("ab", 32), sum: fileSum(t, wasm)}
	first, _ := mustLoad(t, New(Options{}), f)
	p := first.(*plugin)
	if !p.isCompiled() {
		t.Fatal("the first load described the module without compiling it")
	}
	if idle, inUse := p.pool.Stats(); idle != 0 || inUse != 0 {
		t.Errorf("after the first load the pool holds %d idle and %d busy instances, want none", idle, inUse)
	}
	l, _ := mustLoad(t, New(Options{}), f)
	q := l.(*plugin)
	if q.isCompiled() || q.pool.Created() != 0 {
		t.Fatalf("a load with a warm describe cache compiled the module (%v) or made %d instances", q.isCompiled(), q.pool.Created())
	}
	if res := call(t, q, "echo_args", `{"x":1}`); !res.Success {
		t.Fatalf("first call: %s", res.Error)
	}
	if !q.isCompiled() || q.pool.Created() != 1 {
		t.Errorf("after the first call: compiled %v, %d instances", q.isCompiled(), q.pool.Created())
	}
}

// TestFirstCallCannotCompile: when the module a cached description stands
// for cannot be compiled at its first call (the file changed since it was
// trusted, or it does not compile), each call is a failed result naming
// the plugin and why, with a warning in the log; nothing panics and no
// guest code runs.
func TestFirstCallCannotCompile(t *testing.T) {
	echo := pluginbuild.WAT(t, "../examples/wat-echo/echo.wat")
	trap := watPlugin(t, "trap")
	tests := []struct {
		name string
		// prepare returns the fixture, after whatever loads it needs
		// first, and breaks it.
		prepare func(t *testing.T, data string) fixture
		want    string
	}{
		{name: "changed since trusted", want: "sha256", prepare: func(t *testing.T, data string) fixture {
			wasm := copyModule(t, echo)
			f := fixture{name: "changed", wasm: wasm, dataDir: data, hash: strings.Repeat("ab", 32), sum: fileSum(t, wasm)}
			mustLoad(t, New(Options{}), f) // describes and caches
			b, err := os.ReadFile(trap)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(wasm, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return f
		}},
		{name: "does not compile", want: "compile the module", prepare: func(t *testing.T, data string) fixture {
			wasm := filepath.Join(t.TempDir(), "plugin.wasm")
			if err := os.WriteFile(wasm, []byte("\x00asm\x01\x00\x00\x00\x01\xff\xff"), 0o644); err != nil {
				t.Fatal(err)
			}
			f := fixture{name: "broken", wasm: wasm, dataDir: data, hash: strings.Repeat("cd", 32), sum: fileSum(t, wasm)}
			// The description another talon (another wazero) cached.
			p := &manifest.Plugin{Manifest: manifest.Manifest{Name: f.name}, Hash: f.hash}
			doc, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "echo_args", "description": "d", "inputSchema": map[string]any{"type": "object"}, "tier": "low"}}})
			if err := plugins.WriteCacheFile(describeCacheFile(data, describeKey(p, f.sum)), doc); err != nil {
				t.Fatal(err)
			}
			return f
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.prepare(t, t.TempDir())
			l, logs := mustLoad(t, New(Options{}), f)
			p := l.(*plugin)
			for i := range 2 {
				res, err := find(t, l, "echo_args").Execute(context.Background(), json.RawMessage(`{}`))
				if err != nil {
					t.Fatalf("call %d: error %v, want a failed result", i, err)
				}
				wantFailure(t, res, "wasm."+f.name, tt.want)
			}
			if !strings.Contains(logs.String(), "wasm call failed") {
				t.Errorf("no warning logged:\n%s", logs)
			}
			if p.pool.Created() != 2 || p.isCompiled() {
				t.Errorf("instances tried %d, compiled %v", p.pool.Created(), p.isCompiled())
			}
		})
	}
}

// cacheFiles lists the files of a data directory's compilation cache.
func cacheFiles(t testing.TB, data string) []string {
	t.Helper()
	var files []string
	_ = filepath.WalkDir(filepath.Join(data, "cache", "wasm"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return nil
	})
	return files
}

// TestIdenticalModulesShareOneCompiledForm: two plugins of one host with
// the same module bytes compile it once. With the compilation cache's
// files removed after the first plugin compiled, the second compiles
// from the first one's form in memory and writes no file.
func TestIdenticalModulesShareOneCompiledForm(t *testing.T) {
	wasm := pluginbuild.WAT(t, "../examples/wat-echo/echo.wat")
	data := t.TempDir()
	h := New(Options{})
	a, _ := mustLoad(t, h, fixture{name: "first", wasm: wasm, dataDir: data, sum: fileSum(t, wasm)})
	if res := call(t, a, "echo_args", `{}`); !res.Success {
		t.Fatal(res.Error)
	}
	files := cacheFiles(t, data)
	if len(files) == 0 {
		t.Fatal("the first plugin's compile wrote nothing to the compilation cache")
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := mustLoad(t, h, fixture{name: "second", wasm: copyModule(t, wasm), dataDir: data, sum: fileSum(t, wasm)})
	if res := call(t, b, "echo_args", `{}`); !res.Success {
		t.Fatal(res.Error)
	}
	if got := cacheFiles(t, data); len(got) != 0 {
		t.Errorf("the second plugin compiled the same module again: %v", got)
	}
}
