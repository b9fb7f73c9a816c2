package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
)

// wiringHost is a stand-in WASM host for the wiring test: it describes one
// tool per plugin and records what was closed.
type wiringHost struct {
	mu     sync.Mutex
	closed []string
}

func (h *wiringHost) Load(_ context.Context, p *manifest.Plugin, _ plugins.Env) (plugins.Loaded, error) {
	return &wiringLoaded{h: h, name: p.Manifest.Name}, nil
}

type wiringLoaded struct {
	h    *wiringHost
	name string
}

func (l *wiringLoaded) Tools() []tool.Tool { return []tool.Tool{wiringTool{l.name}} }

func (l *wiringLoaded) Close(context.Context) error {
	l.h.mu.Lock()
	defer l.h.mu.Unlock()
	l.h.closed = append(l.h.closed, l.name)
	return nil
}

type wiringTool struct{ plugin string }

func (w wiringTool) Spec() tool.Spec {
	return tool.Spec{Name: w.plugin + "_greet", Description: "Greets from " + w.plugin, Tier: tool.Low,
		Input: json.RawMessage(`{"type":"object"}`), Attribution: tool.Attribution{Kind: tool.KindWASM, Alias: w.plugin}}
}

func (w wiringTool) Execute(context.Context, json.RawMessage) (tool.Result, error) {
	return tool.Text("hello from " + w.plugin), nil
}

var (
	wiringOnce sync.Once
	wiring     *wiringHost
)

// useWiringHost registers the stand-in host, unless this test binary has
// the real one.
func useWiringHost(t *testing.T) *wiringHost {
	t.Helper()
	wiringOnce.Do(func() {
		if _, ok := plugins.LookupHost(manifest.KindWASM); !ok {
			wiring = &wiringHost{}
			plugins.RegisterHost(manifest.KindWASM, wiring)
		}
	})
	if wiring == nil {
		t.Skip("the real WASM host is linked into this test binary")
	}
	return wiring
}

func TestPluginsJoinTheCatalog(t *testing.T) {
	h := useWiringHost(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writePlugin := func(name string, trusted bool) {
		pd := filepath.Join(data, "plugins", name)
		if err := os.MkdirAll(filepath.Join(pd, "locales", "en"), 0o755); err != nil {
			t.Fatal(err)
		}
		entry := []byte("module " + name)
		if err := os.WriteFile(filepath.Join(pd, "p.wasm"), entry, 0o644); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("name = %q\nabi_version = 1\nkind = \"wasm\"\nentry = \"p.wasm\"\nsha256 = %q\n", name, manifest.HashBytes(entry))
		if err := os.WriteFile(filepath.Join(pd, manifest.FileName), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		ftl := fmt.Sprintf("tool-%s-greet = Greets, as the plugin's message file says\n", name)
		if err := os.WriteFile(filepath.Join(pd, "locales", "en", "tools.ftl"), []byte(ftl), 0o644); err != nil {
			t.Fatal(err)
		}
		if trusted {
			tr, err := manifest.OpenTrust(data)
			if err != nil {
				t.Fatal(err)
			}
			if err := tr.Grant(name, manifest.HashBytes([]byte(text))); err != nil {
				t.Fatal(err)
			}
		}
	}
	writePlugin("hello", true)
	writePlugin("stranger", false)
	cfg := "[tools]\noptional = []\n[plugins]\nenabled = true\nauto_discover = true\n[plugins.security]\nsignature_mode = \"disabled\"\n"
	if err := os.WriteFile(filepath.Join(dir, "talon.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, ".config"), "PATH": os.Getenv("PATH")}
	var out strings.Builder
	code := Main([]string{"--data-dir", data, "tools", "list", "--json"}, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out, Cwd: dir,
		Getenv: func(k string) string { return vars[k] }})
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"talon: warning: plugin stranger skipped: plugin stranger is not trusted",
		`"hello_greet"`,
		"Greets, as the plugin's message file says",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "stranger_greet") {
		t.Errorf("an untrusted plugin's tool was listed:\n%s", got)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.closed) != 1 || h.closed[0] != "hello" {
		t.Errorf("plugins closed at exit: %v", h.closed)
	}
}

func TestLintReportsSkippedPlugins(t *testing.T) {
	dir := t.TempDir()
	pd := filepath.Join(dir, "plugins", "hello")
	if err := os.MkdirAll(pd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pd, "p.wasm"), []byte("module"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("name = \"hello\"\nabi_version = 1\nkind = \"wasm\"\nentry = \"p.wasm\"\nsha256 = %q\n", manifest.HashBytes([]byte("module")))
	if err := os.WriteFile(filepath.Join(pd, manifest.FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "[plugins]\nenabled = true\ndir = \"plugins\"\n[[plugins.entries]]\nname = \"hello\"\n[[plugins.entries]]\nname = \"absent\"\n"
	if err := os.WriteFile(filepath.Join(dir, "talon.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, ".config"), "PATH": os.Getenv("PATH")}
	var out strings.Builder
	Main([]string{"--data-dir", filepath.Join(dir, "data"), "lint"}, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out, Cwd: dir,
		Getenv: func(k string) string { return vars[k] }})
	for _, want := range []string{
		"plugin hello skipped: plugin hello is not trusted",
		"plugin absent is listed in [[plugins.entries]]",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lint output lacks %q:\n%s", want, out.String())
		}
	}
}
