package wasm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/internal/syncbuf"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
	"github.com/talonhq/talon/tool"
)

// dataDir is the data directory every test loads with, so that each module
// is compiled once per run: a directory kept between runs under the user's
// cache directory when there is one (wazero keys entries by module digest
// and its own version, so stale entries are never used), else a temporary
// one.
var dataDir string

func TestMain(m *testing.M) {
	var tmp string
	if c, err := os.UserCacheDir(); err == nil && os.MkdirAll(filepath.Join(c, "talon-test", "wasm"), 0o700) == nil {
		dataDir = filepath.Join(c, "talon-test", "wasm")
	} else if tmp, err = os.MkdirTemp("", "talon-wasm-test-"); err == nil {
		dataDir = tmp
	}
	code := m.Run()
	pluginbuild.Cleanup()
	if tmp != "" {
		_ = os.RemoveAll(tmp)
	}
	os.Exit(code)
}

// syncBuffer collects output written from several goroutines.
type syncBuffer = syncbuf.Buffer

// fixture is a plugin to load in a test.
type fixture struct {
	name   string
	wasm   string
	limits manifest.Limits
	grants manifest.Grants
	read   []string // permissions.config_read
	sig    manifest.SignatureStatus
	ws     string
	// dataDir replaces the shared data directory (for a cold describe
	// cache); hash is the plugin.toml hash the loader would pass.
	dataDir string
	hash    string
	// sum is plugin.toml's sha256 of the module ("" checks nothing).
	sum string
}

// goPlugin builds a Go plugin from testdata or examples.
func goPlugin(t testing.TB, dir string) string {
	t.Helper()
	return pluginbuild.GoWASM(t, dir)
}

// watPlugin assembles testdata/wat/<name>.wat.
func watPlugin(t testing.TB, name string) string {
	t.Helper()
	return pluginbuild.WAT(t, filepath.Join("testdata", "wat", name+".wat"))
}

// load loads f with host h, logging into the returned buffer.
func load(t testing.TB, h *Host, f fixture) (plugins.Loaded, *syncBuffer, error) {
	t.Helper()
	logs := &syncBuffer{}
	if f.ws == "" {
		f.ws = t.TempDir()
	}
	p := &manifest.Plugin{
		Manifest: manifest.Manifest{
			Name: f.name, Version: "0.0.1", ABIVersion: 1, Kind: manifest.KindWASM,
			Entry: filepath.Base(f.wasm), SHA256: f.sum, Limits: f.limits,
			Permissions: manifest.Permissions{ConfigRead: f.read},
		},
		Dir:       filepath.Dir(f.wasm),
		EntryPath: f.wasm,
		Hash:      f.hash,
		Signature: f.sig,
		Grants:    f.grants,
	}
	dd := dataDir
	if f.dataDir != "" {
		dd = f.dataDir
	}
	l, err := h.Load(context.Background(), p, plugins.Env{
		Workspace: f.ws,
		DataDir:   dd,
		Logger:    zerolog.New(logs).Level(zerolog.DebugLevel),
	})
	if err == nil {
		t.Cleanup(func() { _ = l.Close(context.Background()) })
	}
	return l, logs, err
}

func mustLoad(t testing.TB, h *Host, f fixture) (plugins.Loaded, *syncBuffer) {
	t.Helper()
	l, logs, err := load(t, h, f)
	if err != nil {
		t.Fatalf("load %s: %v", f.name, err)
	}
	return l, logs
}

func find(t testing.TB, l plugins.Loaded, name string) tool.Tool {
	t.Helper()
	for _, tl := range l.Tools() {
		if tl.Spec().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

func call(t testing.TB, l plugins.Loaded, name, args string) tool.Result {
	t.Helper()
	res, err := find(t, l, name).Execute(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	return res
}

func wantFailure(t testing.TB, res tool.Result, parts ...string) {
	t.Helper()
	if res.Success {
		t.Fatalf("result succeeded (%q); want a failure containing %q", res.Output.Text, parts)
	}
	for _, p := range parts {
		if !strings.Contains(res.Error, p) {
			t.Fatalf("error %q does not contain %q", res.Error, p)
		}
	}
}

func wantText(t testing.TB, res tool.Result, want string) {
	t.Helper()
	if !res.Success {
		t.Fatalf("result failed: %s", res.Error)
	}
	if !strings.Contains(res.Output.Text, want) {
		t.Fatalf("output %q does not contain %q", res.Output.Text, want)
	}
}

func ptrBool(b bool) *bool { return &b }
