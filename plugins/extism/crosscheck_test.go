package extism

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/plugins/manifest"
)

// examples are the two example servlets, built from source: the Go one
// with the standard toolchain, the AssemblyScript one with the pinned asc.
func examples(t *testing.T) []struct{ name, wasm string } {
	t.Helper()
	root := pluginbuild.Root()
	return []struct{ name, wasm string }{
		{"textkit", pluginbuild.GoWASM(t, filepath.Join(root, "plugins", "examples", "servlet-go"))},
		{"vowels", pluginbuild.AssemblyScript(t, filepath.Join(root, "plugins", "examples", "servlet-as"))},
	}
}

// jsCall is one export call through Extism's JavaScript host.
type jsCall struct {
	Fn    string `json:"fn"`
	Input string `json:"input"`
}

type jsAnswer struct {
	Output *string `json:"output"`
	Error  string  `json:"error"`
}

// runJS calls the exports of wasm through @extism/extism under Node.
func runJS(t *testing.T, wasm string, config map[string]string, calls []jsCall) []jsAnswer {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed: install Debian's nodejs and npm packages; make test does this when it can")
	}
	modules := pluginbuild.NodeModules(t, filepath.Join("testdata", "jshost"))
	req, err := json.Marshal(map[string]any{"config": config, "calls": calls})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join("testdata", "jshost", "run.cjs"), modules, wasm)
	cmd.Stdin = bytes.NewReader(req)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node run.cjs: %v\n%s", err, stderr.String())
	}
	var answers []jsAnswer
	if err := json.Unmarshal(out, &answers); err != nil {
		t.Fatalf("node run.cjs printed %s: %v", out, err)
	}
	if len(answers) != len(calls) {
		t.Fatalf("%d answers for %d calls", len(answers), len(calls))
	}
	return answers
}

// TestSameAnswersAsExtismJS runs the same .wasm files through talon and
// through Extism's own JavaScript host and compares what describe and call
// return, byte for byte, then checks talon's tools read them the same way.
func TestSameAnswersAsExtismJS(t *testing.T) {
	h := New(Options{})
	args := []string{
		`{"text":"Hello, wörld"}`,
		`{"text":"a\tb \"quoted\" \\ line\nsecond 😀"}`,
		`{"text":""}`,
		`{}`,
	}
	for _, ex := range examples(t) {
		t.Run(ex.name, func(t *testing.T) {
			l, _ := mustLoad(t, h, fixture{name: ex.name, wasm: ex.wasm})
			p := l.(*plugin)
			calls := []jsCall{{Fn: "describe"}}
			var names []string
			for _, tl := range l.Tools() {
				names = append(names, tl.Spec().Name)
			}
			for _, n := range append(names, "no_such_tool") {
				for _, a := range args {
					in, err := encodeCall(n, json.RawMessage(a))
					if err != nil {
						t.Fatal(err)
					}
					calls = append(calls, jsCall{Fn: "call", Input: string(in)})
				}
			}
			js := runJS(t, ex.wasm, nil, calls)
			for i, c := range calls {
				got, err := p.run(context.Background(), "", c.Fn, []byte(c.Input), nil)
				if err != nil || got.guestErr != "" {
					t.Fatalf("talon %s(%s): %v %s", c.Fn, c.Input, err, got.guestErr)
				}
				if js[i].Output == nil {
					t.Fatalf("extism-js %s(%s) failed: %s", c.Fn, c.Input, js[i].Error)
				}
				if string(got.out) != *js[i].Output {
					t.Errorf("%s(%s):\n talon     %s\n extism-js %s", c.Fn, c.Input, got.out, *js[i].Output)
				}
			}
			// talon's view of the JS host's answers is its tools' results.
			specs, err := DecodeDescribe([]byte(*js[0].Output))
			if err != nil || len(specs) != len(names) {
				t.Fatalf("describe through extism-js: %v, %d tools", err, len(specs))
			}
			for i, c := range calls[1:] {
				var req callRequest
				if err := json.Unmarshal([]byte(c.Input), &req); err != nil {
					t.Fatal(err)
				}
				if req.Params.Name == "no_such_tool" {
					continue
				}
				want, werr := DecodeResult([]byte(*js[i+1].Output))
				got, err := find(t, l, req.Params.Name).Execute(context.Background(), req.Params.Arguments)
				if err != nil || werr != nil {
					t.Fatalf("%s: %v, %v", c.Input, err, werr)
				}
				if !want.Success {
					want.Error = "extism." + ex.name + ": " + req.Params.Name + ": " + want.Error
				}
				if got.Success != want.Success || got.Output.Text != want.Output.Text || got.Error != want.Error {
					t.Errorf("%s: talon %+v, extism-js %+v", c.Input, got, want)
				}
			}
		})
	}
	_ = manifest.KindExtism
}
