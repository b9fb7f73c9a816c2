package extismbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// args is the tool's JSON arguments in every benchmark, the same as
// plugins/wasm's benchArgs so the two modules' figures describe one call.
const args = `{"message":"hello, plugin","n":42,"ok":true,"items":["alpha","beta","gamma","delta","epsilon","zeta","eta","theta"],"nested":{"a":1.5,"b":[1,2,3],"c":{"d":"e"}}}`

// payload is the call document both hosts hand the guest, byte for byte
// what talon's host sends a plugin's talon_call.
var payload = callDoc("echo", args)

func callDoc(name, args string) []byte {
	return []byte(`{"name":"` + name + `","arguments":` + args + `}`)
}

// callTimeout is the per-call deadline of the timeout variants: talon's
// default timeout_ms.
const callTimeout = 30 * time.Second

// guestWASM is the guest module, built from ./guest by TestMain.
var guestWASM []byte

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "extism-bench")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	guestWASM, err = buildGuest(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// buildGuest compiles ./guest as a wasip1 reactor into dir.
func buildGuest(dir string) ([]byte, error) {
	out := filepath.Join(dir, "guest.wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, "./guest")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build the guest: %w\n%s", err, msg)
	}
	return os.ReadFile(out)
}

// compiled is shared by every runtime, so each configuration compiles the
// guest once (close-on-context-done compiles to different code, and the
// cache keeps the two apart).
var compiled = wazero.NewCompilationCache()

// runtimeConfig is the configuration both hosts run the guest under; the
// timeout variants add close-on-context-done, as Extism does itself when
// its manifest sets a timeout.
func runtimeConfig(timeout bool) wazero.RuntimeConfig {
	return wazero.NewRuntimeConfig().WithCloseOnContextDone(timeout).WithCompilationCache(compiled)
}

// rawHost calls the guest's bench_* exports directly through wazero.
type rawHost struct {
	rt               wazero.Runtime
	mod              api.Module
	alloc, echo, del api.Function
	timeout          bool
}

// newRawHost instantiates the guest with WASI (no mounts, no env) and a
// stand-in for every extism:host/env import that fails if it is ever
// called: the bare path never reaches the kernel.
func newRawHost(tb testing.TB, timeout bool) *rawHost {
	tb.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, runtimeConfig(timeout))
	tb.Cleanup(func() { _ = rt.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	guest, err := rt.CompileModule(ctx, guestWASM)
	if err != nil {
		tb.Fatal(err)
	}
	env := rt.NewHostModuleBuilder("extism:host/env")
	for _, f := range guest.ImportedFunctions() {
		if module, name, _ := f.Import(); module == "extism:host/env" {
			env.NewFunctionBuilder().WithGoFunction(api.GoFunc(func(context.Context, []uint64) {
				panic("the bare host does not provide " + name)
			}), f.ParamTypes(), f.ResultTypes()).Export(name)
		}
	}
	if _, err := env.Instantiate(ctx); err != nil {
		tb.Fatal(err)
	}
	mod, err := rt.InstantiateModule(ctx, guest, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := mod.ExportedFunction("_initialize").Call(ctx); err != nil {
		tb.Fatal(err)
	}
	return &rawHost{rt: rt, mod: mod, timeout: timeout,
		alloc: mod.ExportedFunction("bench_alloc"),
		echo:  mod.ExportedFunction("bench_echo"),
		del:   mod.ExportedFunction("bench_free")}
}

// call is one bare call: allocate, write the input, call, copy the output
// out, free both blocks.
func (h *rawHost) call(in []byte) ([]byte, error) {
	ctx := context.Background()
	if h.timeout {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	res, err := h.alloc.Call(ctx, uint64(len(in)))
	if err != nil {
		return nil, err
	}
	ptr := uint32(res[0])
	if !h.mod.Memory().Write(ptr, in) {
		return nil, errors.New("input block outside memory")
	}
	res, err = h.echo.Call(ctx, uint64(ptr), uint64(len(in)))
	if err != nil {
		return nil, err
	}
	if res[0] == 0 {
		return nil, errors.New("the guest lost the input block")
	}
	outPtr, outLen := uint32(res[0]>>32), uint32(res[0])
	view, ok := h.mod.Memory().Read(outPtr, outLen)
	if !ok {
		return nil, errors.New("output block outside memory")
	}
	out := bytes.Clone(view)
	if _, err := h.del.Call(ctx, uint64(ptr)); err != nil {
		return nil, err
	}
	if _, err := h.del.Call(ctx, uint64(outPtr)); err != nil {
		return nil, err
	}
	return out, nil
}

// extismHost calls the guest's echo export through the Extism SDK, one
// warm plugin instance reused for every call.
type extismHost struct {
	plugin *extism.Plugin
}

func newExtismHost(tb testing.TB, timeout bool) *extismHost {
	tb.Helper()
	ctx := context.Background()
	manifest := extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: guestWASM, Name: "main"}}}
	if timeout {
		manifest.Timeout = uint64(callTimeout.Milliseconds())
	}
	plugins, err := extism.NewCompiledPlugin(ctx, manifest,
		extism.PluginConfig{EnableWasi: true, RuntimeConfig: runtimeConfig(timeout)}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = plugins.Close(ctx) })
	plugin, err := plugins.Instance(ctx, extism.PluginInstanceConfig{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = plugin.Close(ctx) })
	return &extismHost{plugin: plugin}
}

func (h *extismHost) call(in []byte) ([]byte, error) {
	rc, out, err := h.plugin.Call("echo", in)
	if err != nil {
		return nil, err
	}
	if rc != 0 {
		return nil, fmt.Errorf("echo returned %d", rc)
	}
	return out, nil
}

type caller interface{ call([]byte) ([]byte, error) }

// hosts lists both hosts for one runtime configuration, the baseline first.
func hosts(tb testing.TB, timeout bool) []struct {
	name string
	h    caller
} {
	return []struct {
		name string
		h    caller
	}{
		{"raw", newRawHost(tb, timeout)},
		{"extism", newExtismHost(tb, timeout)},
	}
}

// wantEcho is the guest's answer to a call of echo with args: the
// arguments decoded into a map and encoded again (keys sorted), as text and
// as structured content.
func wantEcho(tb testing.TB, args string) []byte {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		tb.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	text, err := json.Marshal(string(b))
	if err != nil {
		tb.Fatal(err)
	}
	return []byte(`{"content":[{"type":"text","text":` + string(text) + `}],"structuredContent":` + string(b) + `}`)
}

// TestEchoAgrees checks that both hosts, with and without a deadline, reach
// the same guest logic and get the same bytes back for several calls on
// one warm instance, and that a bad call is a failed result, not an error.
func TestEchoAgrees(t *testing.T) {
	good := []string{
		args,
		`{}`,
		`{"z":"last","a":"first","m":[1,2,3],"html":"<b>&</b>"}`, // keys sorted, HTML escaped
		"{\"pad\":\"" + strings.Repeat("x", 4001) + "\"}",        // many 8-byte words and a tail
	}
	bad := [][]byte{
		[]byte(`{"name":"echo","arguments":[1,`), // not JSON
		callDoc("other", `{}`),                   // no such tool
		callDoc("echo", `[1,2]`),                 // arguments not an object
		[]byte(`x`),                              // shorter than a word
	}
	for _, timeout := range []bool{false, true} {
		for _, host := range hosts(t, timeout) {
			t.Run(fmt.Sprintf("%s/timeout=%v", host.name, timeout), func(t *testing.T) {
				for round := range 3 {
					for i, a := range good {
						got, err := host.h.call(callDoc("echo", a))
						if err != nil {
							t.Fatalf("round %d call %d: %v", round, i, err)
						}
						if want := wantEcho(t, a); !bytes.Equal(got, want) {
							t.Fatalf("round %d call %d: got %s, want %s", round, i, got, want)
						}
					}
					for i, in := range bad {
						got, err := host.h.call(in)
						if err != nil || !bytes.HasSuffix(got, []byte(`"isError":true}`)) {
							t.Fatalf("round %d bad call %d: got %s, %v; want a failed result", round, i, got, err)
						}
					}
				}
			})
		}
	}
}

// benchCalls runs one warm call per operation on each host and reports
// CPU time per call (cpu-ns/op) next to wall time.
func benchCalls(b *testing.B, timeout bool) {
	want := wantEcho(b, args)
	for _, host := range hosts(b, timeout) {
		b.Run(host.name, func(b *testing.B) {
			if got, err := host.h.call(payload); err != nil || !bytes.Equal(got, want) {
				b.Fatalf("warm-up call: %s, %v", got, err)
			}
			b.ReportAllocs()
			start, n := cpuTime(), 0
			for b.Loop() {
				if _, err := host.h.call(payload); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if used := cpuTime() - start; used > 0 && n > 0 {
				b.ReportMetric(float64(used)/float64(n), "cpu-ns/op")
			}
		})
	}
}

// BenchmarkExtismCall is one call of the JSON echo guest on a warm
// instance: /raw through bare wazero (the baseline), /extism through the
// Extism SDK, both without a deadline.
func BenchmarkExtismCall(b *testing.B) { benchCalls(b, false) }

// BenchmarkExtismCallTimeout is BenchmarkExtismCall with a 30 s deadline
// per call, enforced by wazero's close-on-context-done in both hosts.
func BenchmarkExtismCallTimeout(b *testing.B) { benchCalls(b, true) }
