package extism

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
)

func fileSum(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

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

var reverse = []manifest.Tool{{Name: "backwards", Export: "reverse", Tier: "low"}}

// TestLoadIsLazy: once a module was checked (and a servlet described), a
// later load of the same plugin reads, checks and compiles nothing; the
// first call does. The load that checks the module closes the instance it
// described with: a pool starts empty. Another plugin.toml (a new
// version) or other granted config is checked again.
func TestLoadIsLazy(t *testing.T) {
	tests := []struct {
		name  string
		wasm  string
		tools []manifest.Tool
		call  string
	}{
		{name: "servlet", wasm: "servlet", call: "shout"},
		{name: "plain", wasm: "plain", tools: reverse, call: "backwards"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wasm := watModule(t, tt.wasm)
			f := fixture{name: tt.name, wasm: wasm, tools: tt.tools, dataDir: t.TempDir(), hash: strings.Repeat("ab", 32), sum: fileSum(t, wasm)}
			first, _ := mustLoad(t, New(Options{}), f)
			p := first.(*plugin)
			if !p.isCompiled() {
				t.Fatal("the first load did not check and compile the module")
			}
			if idle, inUse := p.pool.Stats(); idle != 0 || inUse != 0 {
				t.Errorf("after the first load the pool holds %d idle and %d busy instances, want none", idle, inUse)
			}
			l, _ := mustLoad(t, New(Options{}), f)
			q := l.(*plugin)
			if q.isCompiled() {
				t.Fatal("a load with a cached description compiled the module")
			}
			if got, want := len(q.Tools()), len(p.Tools()); got != want || q.Tools()[0].Spec().Name != tt.call {
				t.Fatalf("cached tools %d, checked %d", got, want)
			}
			if res := call(t, q, tt.call, `{"text":"x","s":"ab"}`); !res.Success {
				t.Fatalf("first call: %s", res.Error)
			}
			if !q.isCompiled() {
				t.Error("the first call did not compile the module")
			}
			for name, edit := range map[string]func(f *fixture){
				"manifest": func(f *fixture) { f.hash = strings.Repeat("cd", 32) },
				"config":   func(f *fixture) { f.grants.Config = map[string]any{"k": "v"} },
			} {
				g := f
				edit(&g)
				l, _ := mustLoad(t, New(Options{}), g)
				if !l.(*plugin).isCompiled() {
					t.Errorf("another %s was not checked again", name)
				}
			}
		})
	}
}

// TestFirstCallCannotCompile: when the module a cached description stands
// for cannot be compiled at its first call (the file changed since it was
// trusted, or it does not compile), each call is a failed result naming
// the plugin and why, with a warning in the log; nothing panics.
func TestFirstCallCannotCompile(t *testing.T) {
	servlet := watModule(t, "servlet")
	tests := []struct {
		name    string
		prepare func(t *testing.T, data string) fixture
		want    string
	}{
		{name: "changed since trusted", want: "sha256", prepare: func(t *testing.T, data string) fixture {
			wasm := copyModule(t, servlet)
			f := fixture{name: "changed", wasm: wasm, dataDir: data, hash: strings.Repeat("ab", 32), sum: fileSum(t, wasm)}
			mustLoad(t, New(Options{}), f)
			b, err := os.ReadFile(watModule(t, "plain"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(wasm, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return f
		}},
		{name: "does not compile", want: "it ends early", prepare: func(t *testing.T, data string) fixture {
			wasm := filepath.Join(t.TempDir(), "plugin.wasm")
			if err := os.WriteFile(wasm, []byte("\x00asm\x01\x00\x00\x00\x02\x05\x01"), 0o644); err != nil {
				t.Fatal(err)
			}
			f := fixture{name: "broken", wasm: wasm, dataDir: data, hash: strings.Repeat("cd", 32), sum: fileSum(t, wasm)}
			p := &manifest.Plugin{Manifest: manifest.Manifest{Name: f.name}, Hash: f.hash}
			doc, _ := json.Marshal(loadRecord{Version: recordVersion, Servlet: true,
				Describe: json.RawMessage(`{"tools":[{"name":"shout","inputSchema":{"type":"object"}}]}`)})
			if err := plugins.WriteCacheFile(recordFile(data, describeKey(p, f.sum)), doc); err != nil {
				t.Fatal(err)
			}
			return f
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.prepare(t, t.TempDir())
			l, logs := mustLoad(t, New(Options{}), f)
			for i := range 2 {
				res, err := find(t, l, "shout").Execute(context.Background(), json.RawMessage(`{}`))
				if err != nil {
					t.Fatalf("call %d: error %v, want a failed result", i, err)
				}
				wantFailure(t, res, "extism."+f.name, tt.want)
			}
			if !strings.Contains(logs.String(), "extism call failed") {
				t.Errorf("no warning logged:\n%s", logs)
			}
			if l.(*plugin).isCompiled() {
				t.Error("compiled")
			}
		})
	}
}
