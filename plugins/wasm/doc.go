// Package wasm is the wazero host for WASM tool plugins, speaking ABI v1
// (see plugins/ABI.md). It registers itself for kind "wasm" from init;
// the loader in plugins calls [Host.Load] with a plugin whose manifest,
// digest, signature and consent were already checked.
//
// Load compiles the module once, through wazero's on-disk compilation
// cache under <DataDir>/cache/wasm, checks its imports and exports, and
// takes its tools from the describe cache under
// <DataDir>/cache/wasm-describe, or, the first time, asks a first instance
// for its ABI version and tools under a short deadline of its own (5 s).
// Each tool's Execute takes a warm instance from the plugin's bounded
// pool, runs talon_call under the plugin's deadline, memory limit and
// output cap, and hands the instance back, or discards it after any trap,
// timeout, cancellation, bad response or 32 MiB of growth. Instances idle
// for a minute are closed, and the memory of closed instances is handed
// back to the operating system (debug.FreeOSMemory). The guest sees no
// arguments, environment, files or network: only the host functions of
// module talon_host_v1, which check the plugin's grants.
//
//	h := wasm.New(wasm.Options{})
//	loaded, err := h.Load(ctx, plugin, plugins.Env{Workspace: ws, DataDir: data, Logger: log})
//	res, err := loaded.Tools()[0].Execute(ctx, json.RawMessage(`{"name":"Ada"}`))
package wasm
