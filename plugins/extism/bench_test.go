package extism

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/extism/go-sdk"
	"github.com/rs/zerolog"
	"github.com/tetratelabs/wazero"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/manifest"
)

// Benchmarks pair a baseline with the figure it is compared to:
//
//   - BenchmarkExtismToolCall/bare vs /talon: one warm call of the Go
//     example servlet's word_count, through a bare extism/go-sdk plugin
//     (call export, the same CallToolRequest bytes, the same runtime
//     configuration: memory limit, close on a 30 s deadline) against the
//     tool's Execute in talon, which adds the pool, the request's encoding
//     and the result's decoding (target ≤ 1.1×).
//   - BenchmarkExtismColdLoad/bare vs /talon: compiling the same module from
//     a warm on-disk compilation cache as a new process does (a new cache
//     object each time), bare go-sdk against Host.Load with a warm describe
//     cache, which runs no guest code.

// benchText is the argument of every call benchmark.
const benchText = `{"text":"The quick brown fox jumps over the lazy dog.\nPack my box with five dozen liquor jugs.\nHow vexingly quick daft zebras jump!"}`

func servletGo(b testing.TB) string {
	return pluginbuild.GoWASM(b, filepath.Join(pluginbuild.Root(), "plugins", "examples", "servlet-go"))
}

// benchLimits are the example's limits, the same for both sides.
var benchLimits = manifest.Limits{TimeoutMS: 30000, MaxMemoryMB: 64}

// bareRuntime is the runtime configuration talon gives the plugin.
func bareRuntime(cache wazero.CompilationCache) wazero.RuntimeConfig {
	return wazero.NewRuntimeConfig().WithCompilationCache(cache).
		WithMemoryLimitPages(uint32(benchLimits.MaxMemoryMB) * 16).WithCloseOnContextDone(true)
}

// reportCPU runs fn b.N times and reports CPU time per call next to wall
// time.
func reportCPU(b *testing.B, fn func()) {
	b.ReportAllocs()
	start, n := cpuTime(), 0
	for b.Loop() {
		fn()
		n++
	}
	if used := cpuTime() - start; used > 0 && n > 0 {
		b.ReportMetric(float64(used)/float64(n), "cpu-ns/op")
	}
}

func BenchmarkExtismToolCall(b *testing.B) {
	wasm := servletGo(b)
	bin, err := os.ReadFile(wasm)
	if err != nil {
		b.Fatal(err)
	}
	input, err := encodeCall("word_count", json.RawMessage(benchText))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()

	b.Run("bare", func(b *testing.B) {
		cp, err := sdk.NewCompiledPlugin(ctx, sdk.Manifest{Wasm: []sdk.Wasm{sdk.WasmData{Data: bin}}},
			sdk.PluginConfig{EnableWasi: true, RuntimeConfig: bareRuntime(wazero.NewCompilationCache())}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cp.Close(ctx) })
		p, err := cp.Instance(ctx, sdk.PluginInstanceConfig{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = p.Close(ctx) })
		callOnce := func() {
			cctx, cancel := context.WithTimeout(ctx, benchLimits.Timeout())
			defer cancel()
			if rc, _, err := p.CallWithContext(cctx, "call", input); err != nil || rc != 0 {
				b.Fatal(rc, err)
			}
		}
		callOnce()
		reportCPU(b, callOnce)
	})

	b.Run("talon", func(b *testing.B) {
		l, _, err := load(b, New(Options{}), fixture{name: "textkit", wasm: wasm, limits: benchLimits})
		if err != nil {
			b.Fatal(err)
		}
		t := find(b, l, "word_count")
		args := json.RawMessage(benchText)
		callOnce := func() {
			res, err := t.Execute(ctx, args)
			if err != nil || !res.Success {
				b.Fatal(res.Error, err)
			}
		}
		callOnce()
		reportCPU(b, callOnce)
	})
}

func BenchmarkExtismColdLoad(b *testing.B) {
	wasm := servletGo(b)
	bin, err := os.ReadFile(wasm)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	dir := b.TempDir()
	// Warm both caches once: the compilation cache, and talon's describe
	// cache.
	if _, _, err := load(b, New(Options{}), fixture{name: "textkit", wasm: wasm, limits: benchLimits, dataDir: dir}); err != nil {
		b.Fatal(err)
	}

	b.Run("bare", func(b *testing.B) {
		bareLoad := func() {
			cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "cache", "wasm"))
			if err != nil {
				b.Fatal(err)
			}
			cp, err := sdk.NewCompiledPlugin(ctx, sdk.Manifest{Wasm: []sdk.Wasm{sdk.WasmData{Data: bin}}},
				sdk.PluginConfig{EnableWasi: true, RuntimeConfig: bareRuntime(cache)}, nil)
			if err != nil {
				b.Fatal(err)
			}
			_ = cp.Close(ctx)
			_ = cache.Close(ctx)
		}
		bareLoad() // the bare module's bytes differ from talon's: warm its entry
		reportCPU(b, bareLoad)
	})

	b.Run("talon", func(b *testing.B) {
		p := &manifest.Plugin{
			Manifest: manifest.Manifest{Name: "textkit", ABIVersion: 1, Kind: manifest.KindExtism, Entry: filepath.Base(wasm), Limits: benchLimits},
			Dir:      filepath.Dir(wasm), EntryPath: wasm,
		}
		env := plugins.Env{Workspace: b.TempDir(), DataDir: dir, Logger: zerolog.Nop()}
		reportCPU(b, func() {
			l, err := New(Options{}).Load(ctx, p, env)
			if err != nil {
				b.Fatal(err)
			}
			_ = l.Close(ctx)
		})
	})
}
