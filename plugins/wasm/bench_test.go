package wasm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/talonhq/talon/internal/pluginbuild"
	"github.com/talonhq/talon/plugins"
	"github.com/talonhq/talon/plugins/internal/guestlog"
	"github.com/talonhq/talon/plugins/manifest"
)

// Benchmarks pair a baseline with the figure it is compared to:
//
//   - BenchmarkWASMCall/raw vs /talon: a warm call through Tool.Execute
//     against wazero calling the same exports with the same payload, both
//     with deadline enforcement (target ≤ 1.2×).
//   - BenchmarkWASMCallNoDeadline/raw vs /talon: the same with enforcement
//     off, as for a trusted publisher (target ≤ 1.2×).
//   - BenchmarkWASMDeadline/off vs /on: the price of WithCloseOnContextDone
//     itself, raw calls in both; BenchmarkWASMDeadlineWAT/off vs /on, the
//     same for a guest without loops.
//   - BenchmarkWASMColdLoad/compile vs /cached: Host.Load of a Go plugin
//     that compiles and describes it (Env.Verify, as install does) with an
//     empty and a warm on-disk compilation cache (target < 50 ms);
//     /memory, a second load by the same Host (a reload in one process);
//     /lazy, the load of every start, whose description is cached: nothing
//     is compiled.
//   - BenchmarkWASMFirstCall: a plugin's first call after a start (the
//     lazy load, then a call that compiles the module from the warm
//     compilation cache and starts an instance) against reading the same
//     module and compiling it from that cache alone, taking turns, each
//     after a garbage collection; overhead-ns/op is the difference
//     (target ≤ 5 ms). instantiate-ns/op is what starting an instance of
//     the compiled module costs by itself (host functions, WASI, the
//     guest's _initialize), which any first call pays; talon-ns/op is what
//     is left of the overhead without it.
//   - BenchmarkWASMAcquire/new vs /warm: a fresh instance against one from
//     the pool.
//   - BenchmarkWASMInstanceMemory/wat vs /go: bytes per warm instance
//     (guest memory and Go heap), a WAT guest as the baseline.

// benchArgs is the payload of every call benchmark.
var benchArgs = json.RawMessage(`{"message":"hello, plugin","n":42,"ok":true,"items":["alpha","beta","gamma","delta","epsilon","zeta","eta","theta"],"nested":{"a":1.5,"b":[1,2,3],"c":{"d":"e"}}}`)

func benchPlugin(b *testing.B, name string, limits manifest.Limits, sig manifest.SignatureStatus) *plugin {
	b.Helper()
	var wasm string
	if name == "wat" {
		wasm = pluginbuild.WAT(b, "../examples/wat-echo/echo.wat")
	} else {
		wasm = goPlugin(b, "testdata/bench-echo")
	}
	l, _, err := load(b, New(Options{}), fixture{name: "bench", wasm: wasm, limits: limits, sig: sig})
	if err != nil {
		b.Fatal(err)
	}
	p := l.(*plugin)
	if err := p.prepare(context.Background()); err != nil {
		b.Fatal(err)
	}
	return p
}

// rawCaller calls talon_call on its own instance of p's compiled module,
// in p's runtime, the way any wazero embedder would.
type rawCaller struct {
	mod                api.Module
	alloc, free, callF api.Function
}

func newRaw(b *testing.B, p *plugin) *rawCaller {
	b.Helper()
	ctx := withState(context.Background(), &callState{p: p, inst: &instance{}})
	mod, err := p.rt.InstantiateModule(ctx, p.compiled, p.moduleConfig(guestlog.New(zerolog.Nop(), "bench")))
	if err != nil {
		b.Fatal(err)
	}
	if init := mod.ExportedFunction(exportInitialize); init != nil {
		if _, err := init.Call(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() { _ = mod.Close(context.Background()) })
	return &rawCaller{mod: mod, alloc: mod.ExportedFunction(exportAlloc), free: mod.ExportedFunction(exportFree), callF: mod.ExportedFunction(exportCall)}
}

// call is one raw round trip: allocate, write, call, read, free both.
func (r *rawCaller) call(b *testing.B, ctx context.Context, doc []byte) []byte {
	res, err := r.alloc.Call(ctx, uint64(len(doc)))
	if err != nil {
		b.Fatal(err)
	}
	ptr := uint32(res[0])
	r.mod.Memory().Write(ptr, doc)
	res, err = r.callF.Call(ctx, uint64(ptr), uint64(len(doc)))
	if err != nil {
		b.Fatal(err)
	}
	out, ok := r.mod.Memory().Read(uint32(res[0]>>32), uint32(res[0]))
	if !ok {
		b.Fatal("bad response")
	}
	out = append([]byte(nil), out...)
	if _, err := r.free.Call(ctx, uint64(ptr)); err != nil {
		b.Fatal(err)
	}
	if _, err := r.free.Call(ctx, res[0]>>32); err != nil {
		b.Fatal(err)
	}
	return out
}

// reportCPU runs the loop body through b.Loop and reports CPU time per
// operation as cpu-ns/op.
func reportCPU(b *testing.B, body func()) {
	start := cpuTime()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(n), "cpu-ns/op")
	}
}

func benchCallPair(b *testing.B, p *plugin) {
	doc, _ := json.Marshal(callDoc{Name: "echo", Arguments: benchArgs})
	b.Run("raw", func(b *testing.B) {
		r := newRaw(b, p)
		b.ReportAllocs()
		reportCPU(b, func() {
			ctx, cancel := context.WithTimeout(context.Background(), p.limits.Timeout())
			r.call(b, ctx, doc)
			cancel()
		})
	})
	b.Run("talon", func(b *testing.B) {
		echo := p.tools[0]
		b.ReportAllocs()
		reportCPU(b, func() {
			res, err := echo.Execute(context.Background(), benchArgs)
			if err != nil || !res.Success {
				b.Fatalf("%+v %v", res, err)
			}
		})
	})
}

func BenchmarkWASMCall(b *testing.B) {
	benchCallPair(b, benchPlugin(b, "go", manifest.Limits{}, manifest.Unsigned))
}

func BenchmarkWASMCallNoDeadline(b *testing.B) {
	p := benchPlugin(b, "go", manifest.Limits{EnforceDeadline: ptrBool(false)}, manifest.SignedTrusted)
	if p.enforce {
		b.Fatal("enforcement is on")
	}
	benchCallPair(b, p)
}

func BenchmarkWASMDeadline(b *testing.B) { benchDeadline(b, "go") }

// BenchmarkWASMDeadlineWAT is the same pair for the WAT echo, a guest
// without loops: what is left is the fixed cost per guest entry.
func BenchmarkWASMDeadlineWAT(b *testing.B) { benchDeadline(b, "wat") }

func benchDeadline(b *testing.B, guest string) {
	doc, _ := json.Marshal(callDoc{Name: "echo", Arguments: benchArgs})
	for _, c := range []struct {
		name string
		p    *plugin
	}{
		{"off", benchPlugin(b, guest, manifest.Limits{EnforceDeadline: ptrBool(false)}, manifest.SignedTrusted)},
		{"on", benchPlugin(b, guest, manifest.Limits{}, manifest.Unsigned)},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := newRaw(b, c.p)
			b.ReportAllocs()
			reportCPU(b, func() {
				ctx, cancel := context.WithTimeout(context.Background(), c.p.limits.Timeout())
				r.call(b, ctx, doc)
				cancel()
			})
		})
	}
}

func BenchmarkWASMColdLoad(b *testing.B) {
	wasm := goPlugin(b, "testdata/bench-echo")
	mp := &manifest.Plugin{Manifest: manifest.Manifest{Name: "bench", Kind: manifest.KindWASM}, EntryPath: wasm}
	verify := true
	loadWith := func(b *testing.B, h *Host, dataDir string) {
		l, err := h.Load(context.Background(), mp, plugins.Env{DataDir: dataDir, Logger: zerolog.Nop(), Verify: verify})
		if err != nil {
			b.Fatal(err)
		}
		_ = l.Close(context.Background())
	}
	loadOnce := func(b *testing.B, dataDir string) { loadWith(b, New(Options{}), dataDir) }
	b.Run("compile", func(b *testing.B) {
		reportCPU(b, func() {
			dir, err := os.MkdirTemp("", "talon-bench-")
			if err != nil {
				b.Fatal(err)
			}
			loadOnce(b, dir)
			_ = os.RemoveAll(dir)
		})
	})
	b.Run("cached", func(b *testing.B) {
		dir := b.TempDir()
		loadOnce(b, dir) // fills the on-disk cache
		reportCPU(b, func() {
			loadOnce(b, dir) // a new Host: nothing compiled in memory
		})
	})
	b.Run("memory", func(b *testing.B) {
		dir := b.TempDir()
		h := New(Options{})
		loadWith(b, h, dir)
		reportCPU(b, func() {
			loadWith(b, h, dir) // the same Host: compiled code stays in memory
		})
	})
	b.Run("lazy", func(b *testing.B) {
		dir := b.TempDir()
		loadOnce(b, dir) // describes, and caches the description
		verify = false
		defer func() { verify = true }()
		mp.Manifest.SHA256 = fileSum(b, wasm)
		defer func() { mp.Manifest.SHA256 = "" }()
		loadOnce(b, dir) // the description under the manifest's digest
		reportCPU(b, func() { loadOnce(b, dir) })
	})
}

func BenchmarkWASMFirstCall(b *testing.B) {
	wasm := goPlugin(b, "testdata/bench-echo")
	ctx := context.Background()
	dir := b.TempDir()
	mp := &manifest.Plugin{Manifest: manifest.Manifest{Name: "bench", Kind: manifest.KindWASM, SHA256: fileSum(b, wasm)}, EntryPath: wasm}
	env := plugins.Env{DataDir: dir, Workspace: b.TempDir(), Logger: zerolog.Nop()}
	l, err := New(Options{}).Load(ctx, mp, env) // fills both caches
	if err != nil {
		b.Fatal(err)
	}
	_ = l.Close(ctx)
	pages := uint32(manifest.Limits{}.MemoryMB()) * 16
	var compile, inst, first time.Duration
	for b.Loop() {
		goruntime.GC()
		start := time.Now()
		bin, err := os.ReadFile(wasm)
		if err != nil {
			b.Fatal(err)
		}
		cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "cache", "wasm"))
		if err != nil {
			b.Fatal(err)
		}
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache).
			WithMemoryLimitPages(pages).WithCloseOnContextDone(true))
		compiled, err := rt.CompileModule(ctx, bin)
		if err != nil {
			b.Fatal(err)
		}
		compile += time.Since(start)
		start = time.Now()
		needs, err := checkModule(compiled)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
			b.Fatal(err)
		}
		if err := instantiateHost(ctx, rt, needs); err != nil {
			b.Fatal(err)
		}
		mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions().
			WithSysWalltime().WithSysNanotime().WithSysNanosleep())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := mod.ExportedFunction(exportInitialize).Call(ctx); err != nil {
			b.Fatal(err)
		}
		inst += time.Since(start)
		_ = rt.Close(ctx)
		_ = cache.Close(ctx)

		goruntime.GC()
		start = time.Now()
		l, err := New(Options{}).Load(ctx, mp, env) // a new Host: nothing compiled in memory
		if err != nil {
			b.Fatal(err)
		}
		if p := l.(*plugin); p.isCompiled() {
			b.Fatal("the load compiled the module")
		}
		res, err := l.Tools()[0].Execute(ctx, benchArgs)
		if err != nil || !res.Success {
			b.Fatalf("%+v %v", res, err)
		}
		first += time.Since(start)
		_ = l.Close(ctx)
	}
	n := float64(b.N)
	b.ReportMetric(float64(compile.Nanoseconds())/n, "compile-ns/op")
	b.ReportMetric(float64(inst.Nanoseconds())/n, "instantiate-ns/op")
	b.ReportMetric(float64(first.Nanoseconds())/n, "first-call-ns/op")
	b.ReportMetric(float64((first-compile).Nanoseconds())/n, "overhead-ns/op")
	b.ReportMetric(float64((first-compile-inst).Nanoseconds())/n, "talon-ns/op")
}

func BenchmarkWASMAcquire(b *testing.B) {
	p := benchPlugin(b, "go", manifest.Limits{}, manifest.Unsigned)
	ctx := context.Background()
	b.Run("new", func(b *testing.B) {
		for b.Loop() {
			inst, err := p.newInstance(ctx)
			if err != nil {
				b.Fatal(err)
			}
			inst.close(ctx)
		}
	})
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			inst, err := p.pool.Acquire(ctx)
			if err != nil {
				b.Fatal(err)
			}
			p.pool.Release(ctx, inst, true)
		}
	})
}

func BenchmarkWASMInstanceMemory(b *testing.B) {
	for _, name := range []string{"wat", "go"} {
		b.Run(name, func(b *testing.B) {
			p := benchPlugin(b, name, manifest.Limits{}, manifest.Unsigned)
			ctx := context.Background()
			var guest, heap float64
			var n int
			for b.Loop() {
				var before, after goruntime.MemStats
				goruntime.GC()
				goruntime.ReadMemStats(&before)
				inst, err := p.newInstance(ctx)
				if err != nil {
					b.Fatal(err)
				}
				goruntime.GC()
				goruntime.ReadMemStats(&after)
				guest += float64(inst.mem.Size())
				heap += float64(int64(after.HeapAlloc) - int64(before.HeapAlloc))
				n++
				inst.close(ctx)
			}
			b.ReportMetric(guest/float64(n), "guest-bytes/instance")
			b.ReportMetric(heap/float64(n), "heap-bytes/instance")
		})
	}
}
