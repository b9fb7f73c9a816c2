package wasm

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/locales"
	"github.com/talonhq/talon/tool"
)

func TestHelloGo(t *testing.T) {
	wasm := goPlugin(t, "../examples/hello-go")
	l, _ := mustLoad(t, New(Options{}), fixture{name: "hello", wasm: wasm})
	specs := map[string]tool.Spec{}
	for _, tl := range l.Tools() {
		specs[tl.Spec().Name] = tl.Spec()
	}
	if len(specs) != 2 || specs["greet"].Tier != tool.Low || specs["fetch"].Tier != tool.Medium {
		t.Fatalf("specs = %+v", specs)
	}
	if got := specs["greet"].Attribution.String(); got != "wasm.hello" {
		t.Fatalf("attribution = %s", got)
	}
	wantText(t, call(t, l, "greet", `{"name":"Ada"}`), "Hello, Ada!")
	wantFailure(t, call(t, l, "greet", `{"name":" "}`), "name is empty")
}

func TestWATEcho(t *testing.T) {
	wasm := pluginbuild.WAT(t, "../examples/wat-echo/echo.wat")
	l, logs := mustLoad(t, New(Options{}), fixture{name: "wat-echo", wasm: wasm})
	for i := range 3 { // the allocator resets between calls
		res := call(t, l, "echo_args", fmt.Sprintf(`{"n":%d,"s":"é\"x"}`, i))
		if !res.Success {
			t.Fatalf("echo: %s", res.Error)
		}
		got, _ := json.Marshal(res.Output.Data)
		want := fmt.Sprintf(`{"arguments":{"n":%d,"s":"é\"x"},"name":"echo_args"}`, i)
		if string(got) != want {
			t.Fatalf("data = %s, want %s", got, want)
		}
	}
	if !strings.Contains(logs.String(), `"attribution":"wasm.wat-echo","tool":"echo_args","message":"echo was called"`) {
		t.Fatalf("log line missing:\n%s", logs)
	}
}

// TestHelloGoLocales checks that the example's en and ja message files
// describe exactly the tools and parameters the plugin describes.
func TestHelloGoLocales(t *testing.T) {
	l, _ := mustLoad(t, New(Options{}), fixture{name: "hello", wasm: goPlugin(t, "../examples/hello-go")})
	want := map[string]bool{}
	for _, tl := range l.Tools() {
		s := tl.Spec()
		want[locales.ToolID(s.Name)] = true
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(s.Input, &schema); err != nil {
			t.Fatal(err)
		}
		for p := range schema.Properties {
			want[locales.ParamID(s.Name, p)] = true
		}
	}
	for _, lang := range []string{"en", "ja"} {
		path := filepath.Join("..", "examples", "hello-go", "locales", lang, "hello.ftl")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := locales.ParseFTL(path, b)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, m := range res.Messages {
			got[m.ID] = true
		}
		if !maps.Equal(got, want) {
			t.Fatalf("%s ids = %v, want %v", lang, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
		}
	}
}
