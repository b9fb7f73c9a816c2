package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/talonhq/talon/internal/pluginbuild"
	_ "github.com/talonhq/talon/plugins/standard"
)

// buildHello builds the example Go plugin from source into a plugin
// directory (plugin.toml, locales, hello.wasm) and returns it.
func buildHello(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a WASM plugin")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "plugins", "examples", "hello-go")
	dir := filepath.Join(t.TempDir(), "hello")
	for _, f := range []string{"plugin.toml", "locales/en/hello.ftl", "locales/ja/hello.ftl"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wasm, err := os.ReadFile(pluginbuild.GoWASM(t, src))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hello.wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestServePluginTools installs, trusts and enables the example plugin the
// way an operator does, then lists tools over MCP in Japanese: the plugin's
// tools carry its own translated descriptions, and a call returns the
// plugin's result with a receipt.
func TestServePluginTools(t *testing.T) {
	src := buildHello(t)
	s := newSandbox(t, "schema_version = 1\n[plugins]\nenabled = true\n\n[[plugins.entries]]\nname = \"hello\"\n")
	for _, args := range [][]string{
		{"plugins", "sign", src},
		{"plugins", "install", src},
		{"plugins", "trust", "hello", "--yes"},
	} {
		if code, out := s.run(args...); code != 0 {
			t.Fatalf("talon %v: exit %d\n%s", args, code, out)
		}
	}
	var stderr lockedBuffer
	cs := connectStdio(t, s, "talon", &stderr, "serve", "--stdio", "--locale", "ja")
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var greet *sdk.Tool
	for _, tl := range list.Tools {
		if tl.Name == "greet" {
			greet = tl
		}
	}
	if greet == nil {
		t.Fatalf("tools/list lacks the plugin's greet tool\n%s", stderr.String())
	}
	if greet.Description != "名前を呼んであいさつします。" {
		t.Errorf("greet's description is %q, want the plugin's Japanese text", greet.Description)
	}
	if schema, _ := greet.InputSchema.(map[string]any); !strings.Contains(toJSON(t, schema), "あいさつする相手の名前。") {
		t.Errorf("greet's parameter description is not the plugin's Japanese text: %v", greet.InputSchema)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || callText(t, res) != "Hello, Ada!" {
		t.Fatalf("greet: isError %v, text %q", res.IsError, callText(t, res))
	}
	if rec, ok := res.Meta["talon/receipt"].(map[string]any); !ok || rec["sig"] == "" {
		t.Errorf("no receipt in _meta: %v", res.Meta)
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMain(m *testing.M) {
	code := m.Run()
	pluginbuild.Cleanup()
	os.Exit(code)
}
